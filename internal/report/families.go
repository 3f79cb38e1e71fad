package report

// describe says what a family measures, for the families the lab defines.
// A family not listed here is still reported, described by its parameters.
var describe = map[string]string{
	"WorkQueue": "util/workqueue semantics (Add/Get/Done with de-duplication of dirty and in-flight keys) " +
		"under producer/consumer load: items moved per second and the cost per operation.",
	"FIFO": "tools/cache FIFO: Add/Update/Delete/Pop of keyed objects, where a re-added key keeps its place.",
	"DeltaFIFO": "tools/cache DeltaFIFO behind the Reflector: accumulating Added/Updated/Deleted/Sync deltas per key " +
		"and popping them in order, including Replace (relist) of whole object sets.",
	"Store": "threadSafeMap behind the informer's Indexer: Add/Update/Delete/Get/List and ByIndex lookups " +
		"with indexers over objects.",
	"Pipeline": "the informer path end to end in one process: watch events through DeltaFIFO into the " +
		"indexed store and the workqueue to workers.",
	"InformerContention": "readers of the indexed store contending with the informer's writer, " +
		"as controllers' workers do.",
	"Load": "`queuelab run` scenarios: seeded synthetic watch-event streams through full pipelines " +
		"(store+fifo+workqueue combinations), with end-to-end latency percentiles and peak heap.",
}

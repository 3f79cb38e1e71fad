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
	"StoreScanContention": "the store alone under listers: readers scanning (List, ByIndex) while one writer " +
		"updates objects, over fixed measuring windows (writes/s and reads/s; sec/op is the window).",
	"RateLimitingQueue": "the delaying and rate-limiting layers: AddAfter and AddRateLimited through client-go's " +
		"own layer (layer=clientgo) and through queuelab's layer over each base queue (layer=queuelab).",
	"Load": "`queuelab run` scenarios: seeded synthetic watch-event streams through full pipelines " +
		"(store+fifo+workqueue combinations), with end-to-end latency percentiles and peak heap.",
}

// primaryUnits names the metric that ranks a family's implementations where
// sec/op would mislead: the contention benchmarks sleep through fixed
// measuring windows while readers and the writer run, so their sec/op is
// the window, and a load run's sec/op is its wall time, fixed by the
// offered rate in the fixed-rate scenarios.
var primaryUnits = map[string]string{
	"InformerContention":  "writes/s",
	"StoreScanContention": "writes/s",
	"Load":                "events/s",
	"Pipeline":            "events/s",
}

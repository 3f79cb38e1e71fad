package report

import (
	"slices"

	"github.com/queuelab/queuelab/internal/benchcmp"
)

// describe says what a family measures, for the families the lab defines.
// A family not listed here is still reported, described by its parameters.
var describe = map[string]string{
	"WorkQueue": "util/workqueue semantics (Add/Get/Done with de-duplication of dirty and in-flight keys) " +
		"under producer/consumer load: items moved per second and the cost per operation.",
	"FIFO": "tools/cache FIFO: Add/Update/Delete/Pop of keyed objects, where a re-added key keeps its place.",
	"DeltaFIFO": "tools/cache DeltaFIFO behind the Reflector: accumulating Added/Updated/Deleted/Sync deltas per key " +
		"and popping them in order, including Replace (relist) of whole object sets.",
	"Store": "threadSafeMap behind the informer's Indexer: Add/Update/Delete/Get/List and ByIndex lookups " +
		"with indexers over objects. op=mixed runs readers and one writer over fixed measuring windows " +
		"(reads/s and writes/s; its per-op figures are per window, so the family's per-op rankings leave it out).",
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

// windowedOps names, per family, the op values whose benchmarks run
// readers and a writer for fixed measuring windows (bench's contendRates)
// and report reads/s and writes/s over them; anyOp stands for every
// benchmark of the family. go test divides by b.N, which there counts
// windows, so their sec/op is the window (a 5ms sleep plus however late the
// sleeper is scheduled again) and their B/op and allocs/op grow with
// throughput: per-op units measure no implementation on those rows.
// Scored, they pulled Store's headline from 0.41x to 0.56x in the 2600db1
// run (mutex's windows ran up to 16% long, three "significant" losses). So
// per-op scores and the headline's allocs/op leave these rows out; the
// tables and charts still show them, and their rates are what to read.
var windowedOps = map[string][]string{
	"Store":               {"mixed"},
	"InformerContention":  {anyOp},
	"StoreScanContention": {anyOp},
}

// anyOp in windowedOps: every benchmark of the family is windowed.
const anyOp = "*"

// perOpUnits are the units go test divides by b.N.
var perOpUnits = []string{"sec/op", "B/op", "allocs/op"}

// windowed reports whether row r of family measures nothing of the
// implementation in unit: a per-op unit of a windowedOps row.
func windowed(family string, r *benchcmp.Row, unit string) bool {
	if !slices.Contains(perOpUnits, unit) {
		return false
	}
	op, _ := r.Param("op")
	ops := windowedOps[family]
	return slices.Contains(ops, anyOp) || slices.Contains(ops, op)
}

// measuring returns the rows of family that measure the implementations in
// unit: rows without the windowed ones.
func measuring(family string, rows []*benchcmp.Row, unit string) []*benchcmp.Row {
	return slices.DeleteFunc(slices.Clone(rows), func(r *benchcmp.Row) bool { return windowed(family, r, unit) })
}

// Package loadgen is queuelab's macro benchmark: a seeded synthetic
// watch-event stream driven through the controller data path built from the
// families' registries, with latency, throughput and memory measured and
// every event accounted for.
//
// The work is split into packages with one job each:
//
//   - gen: the deterministic event stream (objects, mix, key popularity,
//     relists, resyncs, disconnects) and its digest.
//   - watchsrc: a cache.ListWatch backed by a stream, so client-go's real
//     Reflector consumes it exactly as it consumes an API server.
//   - account: the per-key ledger that timestamps emissions, checks
//     reconcile exclusivity and decides, at the end, whether the run was
//     correct.
//   - metrics: latency histograms (HdrHistogram), runtime sampling (heap,
//     RSS, GC) and optional pprof profiles.
//   - process: the informer's consumer (client-go's processDeltas and
//     processDeltasInBatch semantics), shared with the lab's end-to-end
//     benchmarks.
//   - pipeline: the workqueue, informer and store pipelines, assembled only
//     from registry names.
//   - scenario: the named scenarios `queuelab run` offers.
//   - report: the table, JSON and benchfmt renderings of results.
package loadgen

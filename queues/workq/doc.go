// Package workq provides drop-in implementations of client-go's
// workqueue.TypedInterface, with delaying and rate-limiting layers that wrap
// any of them (or client-go's own queue).
//
//   - Mutex: one lock and one state record per item (client-go keeps two
//     sets); the fastest single-threaded and, on few cores, in pipelines.
//   - Sharded: items hashed over independent lock-plus-table shards; FIFO per
//     shard only (guarantee.OrderPerShard).
//   - Ring: ready items in a lock-free MPMC queue of rings (unbounded),
//     per-item state changed by compare-and-swap.
//   - Delaying and RateLimiting: AddAfter and AddRateLimited over any
//     TypedInterface, taking client-go's TypedRateLimiter unchanged.
//
// All of them hand an item to one worker at a time, deduplicate Adds of
// queued items, re-queue items added while processing, and keep
// ShutDownWithDrain waiting until nothing is queued or processing (client-go
// stops waiting once nothing is processing: kubernetes/kubernetes#141079).
// Impls lists the queues, client-go's first, for tests, benchmarks and the
// CLI; the conformance suites live in queues/workq/workqtest.
package workq

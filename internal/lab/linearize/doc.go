// Package linearize checks the lab's concurrent structures for
// linearizability: several goroutines drive one queue or store with
// randomized operations and timings, every call is recorded with the
// instants it started and returned, and porcupine searches for an order of
// those calls, consistent with real time, that a sequential model of the
// family accepts. Conformance suites and -race sample interleavings and
// assert what they expect; this asks of every interleaving that happened
// whether any sequential execution explains it.
//
// Each family has a strict model, the behaviour client-go or
// controller-runtime documents, and a weaker model for each relaxation a
// variant declares in its registry (a sharded work queue's per-shard order,
// a lock-free store's scans that mix instants): a variant that declares one
// is checked against the weaker model, never skipped. Every implementation
// in the family's registry is checked, upstream's included, as the control.
//
// Families and models: work queue (client-go's: dirty and processing
// sets, dedup, shutdown; any-order for per-shard order), priority queue
// (controller-runtime's order, ready items only, no ShutDown while its
// rule changes; tail-on-done and max-priority for the declared
// relaxations), store with an index (snapshot scans and atomic Replace;
// per-key and per-key-view partitioned models where scans mix instants),
// in-order FIFO (events in arrival order, ReplacedAll in atomic mode),
// FIFO (latest value per key; any-order for per-shard order), DeltaFIFO
// (client-go's with KnownObjects kept by its consumer, as an informer
// sets it up: deltas appended per key, two deletions compressed into one,
// Replace's Replaced deltas and tombstones at one instant, Resync's Sync
// deltas, Pop handing a key's whole Deltas in queue order with
// isInInitialList; any-order for per-shard order; keys one Replace or
// Resync queues from KnownObjects' ListKeys may come out in any order
// among themselves, as that order is a map's) and the delaying and
// rate-limiting layers (client-go's delaying and rate-limiting queues on
// a fake clock stepped by the history: an item reaches the queue no
// earlier than it is due, through the work queue's dedup, and NumRequeues
// counts what AddRateLimited added and Forget reset). Neither is
// partitioned per key: Replace is atomic across keys, Pop's order and Len
// span them. A DeltaFIFO that fails is checked again without
// isInInitialList, so that a violation of the initial population, which
// ends the run at its first history, hides no other.
//
// The layers' goroutine moves a due item when it runs, which no history
// records, so that model is nondeterministic: it moves an item as late as
// it can, when a Get hands it out or a Len counts it (a move is an Add,
// which commutes with every other call), and lets Get take any queued
// item, since the order in which moved items join other adds is the
// goroutine's; the work queue family checks order.
//
// A checker that accepts everything proves nothing, so the tests run
// deliberately broken variants through the same runs and require each to
// be caught.
//
// Blocking calls (Get) are recorded only once they return. A run never
// ends with one blocked: while a worker waits and nothing else moves, the
// driver adds a fresh item (itself a recorded operation), so every history
// is complete.
package linearize

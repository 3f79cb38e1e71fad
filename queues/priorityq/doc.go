// Package priorityq holds priority work queues: drop-in replacements for
// controller-runtime's priority queue, the default queue of every
// controller-runtime controller since v0.23, which costs microseconds and
// several allocations per item because every add and get passes through its
// goroutines.
//
// Every queue here implements priorityqueue.PriorityQueue with
// controller-runtime's semantics — de-duplication, the highest of the
// priorities and the earliest of the delays of repeated adds, ready items
// by priority then FIFO, an item added while processed handed out again
// after its Done, rate-limited adds through a client-go rate limiter — and
// publishes the same workqueue_* metrics (see crmetrics). Three variants
// trade order against contention: Mutex (controller-runtime's order
// exactly, no goroutines, no allocations), Sharded (FIFO per shard within a
// priority) and LockFree (no lock on add, get and done). Impls lists them
// with controller-runtime's own queue as the Baseline, for tests and
// benchmarks; NewQueue and QueueFunc plug them into
// controller.Options.NewQueue. The conformance suite is priorityqtest.
//
// After ShutDown every Get reports shutdown at once, as controller-runtime's
// does; Options.DrainOnShutdown opts in to client-go's draining instead.
// Once an item is Done and not queued again, they hold no reference to it.
package priorityq

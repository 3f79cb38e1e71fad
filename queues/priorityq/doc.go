// Package priorityq holds priority work queues: drop-in replacements for
// controller-runtime's priority queue, the default queue of every
// controller-runtime controller since v0.23, which costs microseconds and
// several allocations per item because every add and get passes through its
// goroutines.
//
// # Semantics
//
// Every queue here implements PriorityQueue (controller-runtime's
// priorityqueue.PriorityQueue) with controller-runtime's semantics:
// de-duplication, the highest of the priorities and the earliest of the
// delays of repeated adds, ready items by priority then FIFO, an item added
// while processed handed out again after its Done, rate-limited adds through
// a client-go rate limiter. Once an item is Done and not queued again, a
// queue holds no reference to it. Bad Options are an error from the
// constructor, never a panic or a queue that misbehaves later.
//
// # Plugging a queue into a controller
//
// controller.Options.NewQueue takes a constructor with NewQueue's
// signature. NewQueue builds a Mutex queue with default Options, named after
// the controller and limited by the limiter the controller passes:
//
//	ctrl.NewControllerManagedBy(mgr).
//		For(&corev1.Pod{}).
//		WithOptions(controller.Options{NewQueue: priorityq.NewQueue[reconcile.Request]}).
//		Complete(r)
//
// For another variant or other Options, QueueFunc turns a constructor and
// Options into such a function, checking the Options once, up front:
//
//	newQueue, err := priorityq.QueueFunc(priorityq.NewSharded[reconcile.Request],
//		priorityq.Options[reconcile.Request]{Shards: 16})
//	if err != nil {
//		return err
//	}
//	... controller.Options{NewQueue: newQueue} ...
//
// Because the queue is a PriorityQueue, controller-runtime treats it as
// one: handlers' priorities (the initial list at LowPriority, later events
// at 0) survive, as they do with its own queue.
//
// # Which variant
//
//   - Mutex (NewMutex, and NewQueue): controller-runtime's order exactly, no
//     goroutines, no allocations per item. One lock per call; the choice
//     for almost every controller.
//   - Sharded (NewSharded): items spread over Options.Shards locks, for
//     many workers on many cores contending on Mutex's one lock. Priorities
//     hold queue-wide, but within a priority items are FIFO per shard only.
//     With Shards: 1 its order is Mutex's.
//   - LockFree (NewLockFree): no lock on add, get and done. An item re-added
//     while processed, or a delayed item readied by a plain add, goes to the
//     tail of its priority instead of keeping its earlier place; it
//     allocates per new item.
//
// # Metrics
//
// A queue with Options.Name set publishes the workqueue_* series
// controller-runtime's queues publish (depth per priority, adds, latency,
// work duration, unfinished work, longest running processor, retries),
// through crmetrics.Provider into controller-runtime's metrics registry, so
// dashboards and alerts keep working after the swap. Options.MetricsProvider
// sends them elsewhere; an empty Name publishes nothing, as in
// controller-runtime.
//
// # Get and the scheduler
//
// Options.GetYield decides whether Get yields the processor before it takes
// an item. A Get that finds an item ready does not block, so CPU-bound
// workers draining a backlog can keep their processors until preemption and
// starve the informer that feeds the queue. The default (GetYieldDefault,
// now GetYieldOn) yields once per Get, so a worker's turn is one reconcile,
// as under controller-runtime's queue, whose Get blocks once per item under
// load. GetYieldOff saves that scheduler round trip where workers starve no
// one. See GetYield.
//
// # Shutdown
//
// After ShutDown every Get reports shutdown at once, whatever is queued, as
// controller-runtime's does: a stopping or de-elected manager does not
// reconcile its backlog. Options.DrainOnShutdown opts in to client-go's
// draining instead, for workers that must finish accepted work before the
// process exits.
//
// # Testing
//
// priorityqtest is the conformance suite: Run checks the contract an
// implementation declares in its priorityqtest.Guarantees, Diff compares it
// operation by operation with controller-runtime's queue.
package priorityq

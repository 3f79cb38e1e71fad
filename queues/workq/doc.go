// Package workq replaces the queue of a client-go controller: drop-ins for
// workqueue.NewTyped that implement client-go's workqueue.TypedInterface,
// and delaying and rate-limiting layers that give any such queue (client-go's
// own included) AddAfter and AddRateLimited, taking client-go's rate
// limiters unchanged. A controller changes the line that builds its queue
// and keeps the rest: the workqueue interfaces it holds the queue by, its
// limiters, its MetricsProvider.
//
// # What to import
//
// This package for the constructors, k8s.io/client-go/util/workqueue for the
// interfaces and the rate limiters. A controller that builds its queue with
//
//	workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
//
// builds a base queue here and puts the rate-limiting layer over it:
//
//	base, err := workq.NewMutex[string](workq.Options{})
//	...
//	q, err := workq.NewRateLimiting(base, workqueue.DefaultTypedControllerRateLimiter[string](), workq.LayerOptions{})
//
// and goes on using q as a workqueue.TypedRateLimitingInterface[string].
// NewDelaying gives AddAfter alone, as workqueue.NewTypedDelayingQueue does.
// Shut the queue down through the outermost layer: the layer stops its
// timer goroutine and then shuts the base queue down.
//
// # Which queue
//
// All three keep client-go's per-item rules (an Add of a queued item is
// deduplicated, an item added while processing is queued again by its
// Done, no item is handed to two workers at once), release an item at
// Done, as client-go does, and allocate nothing for a steady stream of Add,
// Get and Done. They differ in how workers meet:
//
//   - NewMutex: one lock, as client-go's, but one state record per item
//     instead of two sets and a linked ready list instead of a re-sliced
//     slice. FIFO order, exactly as client-go. The one to start with.
//   - NewSharded: items hashed over shards, each its own lock and table,
//     so producers and workers on different items rarely meet on a lock.
//     Order is FIFO within a shard only (items of different shards may
//     overtake each other), which a controller that reconciles each key
//     on its own does not notice. For many workers on many cores.
//   - NewRing: ready items in a lock-free queue of rings (unbounded: a
//     backlog longer than one ring goes into further rings), per-item
//     state in lock-striped tables, Get lock-free. FIFO except between Adds
//     that overlap in time.
//
// The measurements behind these trade-offs, per benchmark and by core
// count, are in the repository's results/README.md.
//
// # Options
//
// Options configures the three queues; its zero value is valid for each.
// Shards (NewSharded) and Capacity (NewRing) size a queue; MetricsProvider
// with Name publishes client-go's workqueue metrics (depth, adds, latency,
// work duration, unfinished work), so dashboards carry over; Clock times
// them. A field a constructor does not take is an error rather than
// silently ignored. DrainQueued makes ShutDownWithDrain wait for queued
// items as well as processing ones (see below). LayerOptions configures
// NewDelaying and NewRateLimiting: the Clock their timer reads (a
// k8s.io/utils/clock/testing FakeClock in tests) and the retries metric;
// a layer drains as the queue it wraps does.
//
// # Shutting down
//
// ShutDown and ShutDownWithDrain behave as client-go's by default. Both
// make Add a no-op and let Get hand out what is still queued before it
// reports shutdown. ShutDownWithDrain then waits until nothing is being
// processed — not, whatever client-go's comment says, until nothing is
// queued (kubernetes/kubernetes#141079): with no worker holding an item it
// returns at once, leaving the queued items to Get. That keeps a drop-in
// from hanging a shutdown client-go's finishes, such as a controller that
// drains after its workers stopped, or before it started them.
//
// Options{DrainQueued: true} asks for the documented contract instead:
// ShutDownWithDrain waits until every queued item has been handed out and
// Done. Workers must then go on calling Get and Done until Get reports
// shutdown, or the wait never ends. With either, a ShutDown ends the wait.
//
// # Where they differ from client-go
//
// By default, only where client-go breaks its own rules or panics; the
// one difference to opt in to is the drain:
//
//   - With Options.DrainQueued, ShutDownWithDrain also waits for queued
//     items, as client-go documents; client-go's, and these queues'
//     without it, return once nothing is processing.
//   - Done of an item that is queued but was never handed out is ignored;
//     client-go's queues it a second time, so two workers can hold it.
//   - Bad settings are constructor errors: Options out of range, a nil
//     queue, a nil rate limiter (client-go accepts one and panics at the
//     first AddRateLimited).
//
// The contract every queue here keeps, and any work queue can be checked
// against, is the conformance suite in queues/workq/workqtest.
package workq

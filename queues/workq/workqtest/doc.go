// Package workqtest is the conformance suite of the work-queue family:
// client-go's workqueue.TypedInterface, its delaying layer (AddAfter) and
// its rate-limiting layer (AddRateLimited, Forget, NumRequeues). Like
// testing/slogtest, it is for anyone writing such a queue: call Run (and
// RunDelaying, RunRateLimiting for the layers) from a test with
// constructors for fresh queues and the Guarantees the implementation
// declares, and Diff from a fuzz target or with the bytes of a failure to
// replay. What is checked is decided by the Guarantees alone: each property
// is a subtest named for the promise it checks, run on fresh queues under a
// deadlock watchdog, inside testing/synctest where it waits for time or
// asserts that a goroutine is blocked, and a property that needs a promise
// the implementation does not declare is skipped with "[relaxed] ..."
// saying which. client-go's own queues pass every property they are held
// to.
//
//	func TestMyQueue(t *testing.T) {
//		workqtest.Run(t, workqtest.Queues{
//			Strings:  func() workqueue.TypedInterface[string] { return mine.New[string]() },
//			Requests: func() workqueue.TypedInterface[workqtest.Request] { return mine.New[workqtest.Request]() },
//			Any:      func() workqueue.TypedInterface[any] { return mine.New[any]() },
//		}, workqtest.Guarantees{Order: guarantee.OrderFIFO, DrainsQueued: true})
//	}
//
// The contract a work queue keeps:
//
//   - An item is queued, processing (handed out by Get, Done not yet
//     called), processing and dirty (added again while processing), or
//     idle. Add of a queued item changes nothing; Add of a processing item
//     marks it dirty, and Done puts a dirty item back at the end of the
//     queue. So no item is ever handed to two workers at once, and an Add
//     is never lost: every Add is followed by a Get that hands the item out
//     after it.
//   - Done of an item that is not being processed is ignored. Once Done
//     returns for an item that is not dirty, the queue keeps no reference
//     to it, so a queue of pointers does not pin the objects it processed.
//   - Items equal under == are one item, whatever their type: two
//     separately built structs with equal fields, but not 1 and int64(1).
//   - Len counts queued items, not processing ones.
//   - Get blocks while nothing is queued. With Guarantees.Order ==
//     guarantee.OrderFIFO items come out in the order they were queued, a
//     re-queued item behind those queued meanwhile; with OrderPerShard
//     only each item coming out once is promised.
//   - ShutDown makes Add a no-op, wakes every blocked Get, and lets Get
//     hand out what is still queued before it reports shutdown.
//     ShutDownWithDrain does the same and then waits until nothing is
//     processing and, with Guarantees.DrainsQueued, nothing is queued; a
//     ShutDown ends that wait early. Without DrainsQueued it returns as
//     client-go's does: at once if nothing is processing, even with items
//     queued, which Get then still hands out.
//   - A sequence of single-threaded operations gives the same results as
//     client-go's queue (Diff: operations decoded from bytes, made from a
//     seed by SeedOps or by a fuzzer, the trace printed and the bytes kept
//     on failure).
//
// The delaying layer (RunDelaying, which also holds the layered queue to
// the contract above): AddAfter with a non-positive delay adds at once;
// otherwise the item is added exactly when the delay has passed on the
// queue's clock, not a nanosecond before, in deadline order. A second
// AddAfter of a waiting item keeps the earlier deadline. A waiting item
// that is also queued is still one item. Nothing is added after ShutDown.
//
// The rate-limiting layer (RunRateLimiting, which also runs RunDelaying on
// it): AddRateLimited(item) is AddAfter(item, limiter.When(item)) for every
// client-go limiter, NumRequeues and Forget are the limiter's, and it
// behaves so for controller-runtime's struct items as for strings.
package workqtest

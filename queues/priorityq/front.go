package priorityq

import (
	"runtime"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// core is what a variant implements; front turns it into the whole
// PriorityQueue API, so the three variants differ only where they differ.
//
// add takes one item and addAll several, so that the single-item calls
// controllers make pass no slice (one would escape through the interface
// and cost an allocation per Add).
type core[T comparable] interface {
	add(o AddOpts, item T)
	addAll(o AddOpts, items []T)
	get() (item T, priority int, shutdown bool)
	done(item T)
	len() int
	shutDown(drain bool)
	shuttingDown() bool
}

// front is the exported method set shared by Mutex, Sharded and LockFree.
type front[T comparable, C core[T]] struct {
	c       C
	limiter workqueue.TypedRateLimiter[T]
	yield   bool // Options.GetYield
}

// AddWithOpts queues items with o's priority and delay. An item already
// queued keeps the higher of its priorities and the earlier of its ready
// times; an item being processed is queued again and handed out after its
// Done. After shutdown it does nothing.
func (q *front[T, C]) AddWithOpts(o AddOpts, items ...T) {
	switch len(items) {
	case 0:
	case 1:
		q.c.add(o, items[0])
	default:
		q.c.addAll(o, items)
	}
}

// Add queues item at priority 0, ready now.
func (q *front[T, C]) Add(item T) { q.c.add(AddOpts{}, item) }

// AddAfter queues item at priority 0 once after has elapsed (now if ≤ 0).
func (q *front[T, C]) AddAfter(item T, after time.Duration) {
	q.c.add(AddOpts{After: after}, item)
}

// AddRateLimited queues item at priority 0 after the rate limiter's delay.
func (q *front[T, C]) AddRateLimited(item T) {
	q.c.add(AddOpts{RateLimited: true}, item)
}

// GetWithPriority blocks until an item is ready and hands out the one of
// highest priority with its priority; the caller must call Done with it.
// After ShutDown it reports shutdown at once, as controller-runtime's does,
// whatever is queued or processing; with Options.DrainOnShutdown it first
// hands out what is ready. It never blocks after ShutDown.
//
// It yields the processor first unless Options.GetYield is GetYieldOff.
func (q *front[T, C]) GetWithPriority() (item T, priority int, shutdown bool) { return q.get() }

// Get is GetWithPriority without the priority.
func (q *front[T, C]) Get() (item T, shutdown bool) {
	item, _, shutdown = q.get()
	return item, shutdown
}

// get yields the processor first when the GetYield policy says so, before
// the pop, so that the item taken is the best one ready after the others
// ran.
func (q *front[T, C]) get() (item T, priority int, shutdown bool) {
	if q.yield {
		runtime.Gosched()
	}
	return q.c.get()
}

// Done ends the processing of item; if it was added meanwhile it becomes
// eligible for Get again. Once an item is neither queued nor processed the
// queue holds no reference to it.
func (q *front[T, C]) Done(item T) { q.c.done(item) }

// Len is the number of ready items, those added again while processed
// included, as controller-runtime counts them (delayed ones are not).
func (q *front[T, C]) Len() int { return q.c.len() }

// ShutDown stops accepting items, drops the delayed ones, ends any
// ShutDownWithDrain wait and makes every Get, blocked or later, report
// shutdown (with Options.DrainOnShutdown, once nothing ready is left).
func (q *front[T, C]) ShutDown() { q.c.shutDown(false) }

// ShutDownWithDrain is ShutDown, as in controller-runtime, unless
// Options.DrainOnShutdown is set: then it waits until every ready item has
// been handed out and Done (or ShutDown is called), and workers must keep
// calling Get and Done until Get reports shutdown.
func (q *front[T, C]) ShutDownWithDrain() { q.c.shutDown(true) }

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *front[T, C]) ShuttingDown() bool { return q.c.shuttingDown() }

// Forget tells the rate limiter to stop tracking item.
func (q *front[T, C]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues is the rate limiter's count of item's failures.
func (q *front[T, C]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

package workq

import (
	"hash/maphash"
	"sync"

	"k8s.io/client-go/util/workqueue"
)

var _ workqueue.TypedInterface[string] = (*Mutex[string])(nil)

// Mutex is a work queue guarded by one mutex, like client-go's, but with one
// state record per item instead of two sets (see table), a ready list linked
// through those records instead of a re-sliced slice, and wakeups only when
// a Get is actually parked. It starts no goroutine, unless
// Options.MetricsProvider asks for client-go's queue metrics.
//
// It hands items out in FIFO order of enqueue, as client-go does, and its
// ShutDownWithDrain waits, as client-go's, until nothing is processing, or
// with Options.DrainQueued until nothing is queued or processing.
type Mutex[T comparable] struct {
	mu       sync.Mutex
	getters  sync.Cond // parked Get calls; L is &mu
	drainers sync.Cond // parked ShutDownWithDrain calls; L is &mu
	t        table[T]
	parked   int // Get calls waiting on getters and not yet signalled
	shutdown bool
	draining bool
	// drainQueued is Options.DrainQueued: a drain waits for queued items too.
	drainQueued bool
	metrics     *queueMetrics // nil without Options.MetricsProvider; also t.m
}

// NewMutex returns an empty Mutex queue. It takes the metrics Options.
func NewMutex[T comparable](opts Options) (*Mutex[T], error) {
	m, err := opts.check("NewMutex", false, false)
	if err != nil {
		return nil, err
	}
	q := &Mutex[T]{t: table[T]{seed: maphash.MakeSeed()}, drainQueued: opts.DrainQueued}
	q.getters.L = &q.mu
	q.drainers.L = &q.mu
	if q.metrics = newQueueMetrics(m); q.metrics != nil {
		q.t.m = q.metrics
		q.metrics.run(q.refresh)
	}
	return q, nil
}

// Add marks item as needing processing. It is ignored after shutdown and
// while item is already queued; an item being processed is queued again when
// its Done is called.
func (q *Mutex[T]) Add(item T) {
	h := hashOf(q.t.seed, item) // outside the lock: it only reads the seed
	q.mu.Lock()
	if !q.shutdown {
		if q.t.add(item, h) {
			q.wakeOne()
		}
	}
	q.mu.Unlock()
}

// wakeOne signals one parked Get, if any, for an item just queued. The
// signalled Get is unregistered here, not when it runs again, so that the
// Adds made before it is scheduled do not signal the others for nothing.
// Called with mu held.
func (q *Mutex[T]) wakeOne() {
	if q.parked > 0 {
		q.parked--
		q.getters.Signal()
	}
}

// Len returns the number of queued items (not counting those being
// processed), for information only.
func (q *Mutex[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.t.queued()
}

// Get blocks until an item is queued and hands it out; the caller must call
// Done with it. Once the queue is shut down and empty, Get returns the zero
// item and shutdown true.
func (q *Mutex[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	for q.t.queued() == 0 && !q.shutdown {
		q.parked++
		q.getters.Wait() // whoever wakes us has unregistered us
	}
	item, ok := q.t.pop()
	q.mu.Unlock()
	return item, !ok
}

// Done marks the processing of item finished; if item was added meanwhile it
// is queued again. Done of an item that is not being processed is ignored.
func (q *Mutex[T]) Done(item T) {
	q.mu.Lock()
	// The table observes the work duration under the lock, as client-go
	// does, so a ShutDownWithDrain this Done lets return finds it observed.
	if q.t.done(item, 0) {
		q.wakeOne()
	}
	if q.draining && q.t.drained(q.drainQueued) {
		q.drainers.Broadcast()
	}
	q.mu.Unlock()
}

// ShutDown makes the queue ignore new items and ends any ShutDownWithDrain
// wait. Get keeps handing out what is queued, then reports shutdown.
func (q *Mutex[T]) ShutDown() { q.shutDown(false) }

// ShutDownWithDrain shuts the queue down like ShutDown, then waits until
// every handed-out item is Done — or until ShutDown is called — as
// client-go's does: items still queued stay queued for Get to hand out.
// With Options.DrainQueued it also waits until every queued item has been
// handed out and Done; workers must then keep calling Get and Done until
// Get reports shutdown, or the wait never ends.
func (q *Mutex[T]) ShutDownWithDrain() {
	q.shutDown(true)
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.draining && !q.t.drained(q.drainQueued) {
		q.drainers.Wait()
	}
}

// shutDown stops accepting items, wakes every parked Get (and, unless
// drain, every drain wait) and stops the metrics refresher.
func (q *Mutex[T]) shutDown(drain bool) {
	q.mu.Lock()
	q.shutdown, q.draining = true, drain
	q.parked = 0 // the broadcast wakes every one of them
	q.getters.Broadcast()
	if !drain {
		q.drainers.Broadcast()
	}
	q.mu.Unlock()
	q.metrics.halt()
}

// refresh sets the unfinished-work gauges from the items being processed,
// unless the queue is shut down, under the lock, as client-go's does.
func (q *Mutex[T]) refresh() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.shutdown {
		q.metrics.setUnfinished(q.metrics.now(), q.t.started)
	}
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Mutex[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shutdown
}

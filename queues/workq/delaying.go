package workq

import (
	"errors"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

var (
	_ workqueue.TypedDelayingInterface[string] = (*Delaying[string])(nil)
	_ workqueue.TypedInterface[string]         = (*Delaying[string])(nil)
)

// Delaying adds AddAfter to any workqueue.TypedInterface — one of this
// package's queues or client-go's own.
//
// Waiting items sit in a min-heap of deadlines under a mutex, with an index
// from item to heap slot so that a second AddAfter of a waiting item keeps
// the earlier deadline in O(log n) and equal deadlines keep their AddAfter
// order. One goroutine, started by the first AddAfter that needs a timer,
// sleeps on a single timer set to the earliest deadline; AddAfter wakes it
// only when it moves that deadline earlier. client-go's delaying queue
// instead hands every AddAfter to its goroutine through a channel and wakes
// on a ten-second heartbeat. AddAfter with d ≤ 0 is a plain Add and never
// touches the heap or the goroutine.
//
// ShutDown (or ShutDownWithDrain) drops the waiting items, stops the
// goroutine and waits for it, then shuts the wrapped queue down; nothing is
// added after that. Shut the queue down through the layer, not through the
// wrapped queue, or the goroutine outlives it until the layer is shut down.
type Delaying[T comparable] struct {
	workqueue.TypedInterface[T]
	clock   clock.Clock
	retries workqueue.CounterMetric // nil unless LayerOptions.MetricsProvider

	mu       sync.Mutex
	heap     []waiting[T]
	slot     map[T]int // item → index in heap
	seq      uint64    // AddAfter counter, breaks deadline ties
	stopped  bool
	running  bool          // loop started
	kick     chan struct{} // capacity 1: the earliest deadline moved earlier
	stop     chan struct{}
	finished chan struct{} // closed when loop returns
}

type waiting[T comparable] struct {
	item T
	at   time.Time // deadline, on clock
	seq  uint64
}

// NewDelaying wraps q with AddAfter.
func NewDelaying[T comparable](q workqueue.TypedInterface[T], opts LayerOptions) (*Delaying[T], error) {
	if q == nil {
		return nil, errors.New("workq: NewDelaying: nil queue")
	}
	if (opts.MetricsProvider == nil) != (opts.Name == "") {
		return nil, errors.New("workq: NewDelaying: MetricsProvider and Name go together: set both or neither")
	}
	d := &Delaying[T]{
		TypedInterface: q,
		clock:          opts.Clock,
		slot:           make(map[T]int),
		kick:           make(chan struct{}, 1),
		stop:           make(chan struct{}),
		finished:       make(chan struct{}),
	}
	if d.clock == nil {
		d.clock = clock.RealClock{}
	}
	if opts.MetricsProvider != nil {
		d.retries = opts.MetricsProvider.NewRetriesMetric(opts.Name)
	}
	return d, nil
}

// AddAfter adds item to the queue once d has elapsed; d ≤ 0 adds it now. If
// item is already waiting, the earlier of the two deadlines is kept. It is
// ignored after shutdown.
func (q *Delaying[T]) AddAfter(item T, d time.Duration) {
	if q.retries != nil && !q.ShuttingDown() {
		q.retries.Inc()
	}
	if d <= 0 {
		q.Add(item)
		return
	}
	at := q.clock.Now().Add(d)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		return
	}
	i, ok := q.slot[item]
	if ok {
		if !at.Before(q.heap[i].at) {
			return
		}
		q.heap[i].at = at
	} else {
		q.seq++
		i = len(q.heap)
		q.heap = append(q.heap, waiting[T]{item: item, at: at, seq: q.seq})
		q.slot[item] = i
	}
	if q.up(i) != 0 {
		return // the earliest deadline did not change
	}
	if !q.running {
		q.running = true
		go q.loop()
		return
	}
	select {
	case q.kick <- struct{}{}:
	default: // a kick is already pending
	}
}

// loop moves due items into the wrapped queue and sleeps until the earliest
// deadline, a kick or stop.
func (q *Delaying[T]) loop() {
	defer close(q.finished)
	timer := q.clock.NewTimer(time.Hour)
	defer timer.Stop()
	var due []T
	for {
		q.mu.Lock()
		now := q.clock.Now()
		for len(q.heap) > 0 && !q.heap[0].at.After(now) {
			due = append(due, q.popMin())
		}
		wait := time.Duration(-1)
		if len(q.heap) > 0 {
			wait = q.heap[0].at.Sub(now)
		}
		q.mu.Unlock()
		// Add outside the lock: AddAfter callers need not wait for the
		// wrapped queue. Deadline order is kept.
		for _, item := range due {
			q.Add(item)
		}
		clear(due)
		due = due[:0]

		var fire <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			fire = timer.C()
		} else {
			timer.Stop()
		}
		select {
		case <-q.stop:
			return
		case <-q.kick:
		case <-fire:
		}
	}
}

// ShutDown drops the waiting items, stops the layer's goroutine and shuts the
// wrapped queue down.
func (q *Delaying[T]) ShutDown() {
	q.halt()
	q.TypedInterface.ShutDown()
}

// ShutDownWithDrain drops the waiting items, stops the layer's goroutine and
// drains the wrapped queue (see the wrapped queue's ShutDownWithDrain).
func (q *Delaying[T]) ShutDownWithDrain() {
	q.halt()
	q.TypedInterface.ShutDownWithDrain()
}

// halt stops accepting AddAfter and waits for the goroutine to exit.
func (q *Delaying[T]) halt() {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		if q.running {
			<-q.finished
		}
		return
	}
	q.stopped = true
	running := q.running
	clear(q.slot)
	clear(q.heap)
	q.heap = q.heap[:0]
	close(q.stop)
	q.mu.Unlock()
	if running {
		<-q.finished
	}
}

// Heap of waiting items ordered by (at, seq), with slot kept in sync.

func (q *Delaying[T]) less(i, j int) bool {
	a, b := &q.heap[i], &q.heap[j]
	return a.at.Before(b.at) || (a.at.Equal(b.at) && a.seq < b.seq)
}

func (q *Delaying[T]) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.slot[q.heap[i].item] = i
	q.slot[q.heap[j].item] = j
}

// up restores the heap after heap[i] got an earlier deadline and returns its
// final index.
func (q *Delaying[T]) up(i int) int {
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q.swap(i, parent)
		i = parent
	}
	return i
}

func (q *Delaying[T]) popMin() T {
	n := len(q.heap) - 1
	q.swap(0, n)
	w := q.heap[n]
	q.heap[n] = waiting[T]{}
	q.heap = q.heap[:n]
	delete(q.slot, w.item)
	for i := 0; ; {
		smallest, l, r := i, 2*i+1, 2*i+2
		if l < n && q.less(l, smallest) {
			smallest = l
		}
		if r < n && q.less(r, smallest) {
			smallest = r
		}
		if smallest == i {
			break
		}
		q.swap(i, smallest)
		i = smallest
	}
	return w.item
}

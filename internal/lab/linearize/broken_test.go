package linearize_test

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/queuelab/queuelab/internal/lab/linearize"
)

// broken is a deliberately wrong variant the checker must flag.
type broken struct {
	family, name string
	check        func(linearize.Config) linearize.Result
}

// brokenVariants: at least two per family, each a bug that concurrent
// structures have shipped.
func brokenVariants() []broken {
	fifo := func(name string, newQ func() linearize.WorkQueue) broken {
		return broken{"workqueue", name, func(c linearize.Config) linearize.Result {
			return linearize.CheckWorkQueue(c, name, false, newQ)
		}}
	}
	pq := func(name string, newQ func() linearize.PriorityQueue) broken {
		return broken{"priorityq", name, func(c linearize.Config) linearize.Result {
			return linearize.CheckPriorityQueue(c, name, linearize.KeepPosition, newQ)
		}}
	}
	store := func(name string, newS func(cache.Indexers) linearize.Store) broken {
		return broken{"store", name, func(c linearize.Config) linearize.Result {
			return linearize.CheckStore(c, name, false, linearize.OneView, newS)
		}}
	}
	inOrder := func(name string, newQ func() linearize.InOrderQueue) broken {
		return broken{"inorder", name, func(c linearize.Config) linearize.Result {
			return linearize.CheckInOrder(c, name, true, newQ)
		}}
	}
	realFIFO := func() *cache.RealFIFO {
		o := linearize.InOrderOptions()
		return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KeyFunction: o.KeyFunction, AtomicEvents: true})
	}
	fifoQ := func(name string, newQ func() linearize.FIFO) broken {
		return broken{"fifo", name, func(c linearize.Config) linearize.Result {
			return linearize.CheckFIFO(c, name, false, newQ)
		}}
	}
	return append([]broken{
		fifo("drops-item", func() linearize.WorkQueue { return &dropsItem{TypedInterface: workqueue.NewTyped[int]()} }),
		fifo("hands-twice", func() linearize.WorkQueue { return &handsTwice{TypedInterface: workqueue.NewTyped[int]()} }),
		fifo("done-forgets-dirty", func() linearize.WorkQueue { return &forgetsDirty{TypedInterface: workqueue.NewTyped[int]()} }),
		pq("lifo-within-priority", func() linearize.PriorityQueue { return newNaivePQ(pickLIFO) }),
		pq("ignores-priority", func() linearize.PriorityQueue { return newNaivePQ(pickOldest) }),
		pq("hands-processing", func() linearize.PriorityQueue { return newNaivePQ(pickProcessing) }),
		store("non-atomic-replace", func(ix cache.Indexers) linearize.Store {
			return nonAtomicReplace{cache.NewThreadSafeStore(ix, cache.Indices{})}
		}),
		store("loses-update", func(ix cache.Indexers) linearize.Store {
			return &losesUpdate{ThreadSafeStore: cache.NewThreadSafeStore(ix, cache.Indices{})}
		}),
		// The weakest models must still have teeth.
		{"store", "loses-update/per-key-view", func(c linearize.Config) linearize.Result {
			return linearize.CheckStore(c, "loses-update", true, linearize.SplitViews, func(ix cache.Indexers) linearize.Store {
				return &losesUpdate{ThreadSafeStore: cache.NewThreadSafeStore(ix, cache.Indices{})}
			})
		}},
		{"workqueue", "hands-twice/any-order", func(c linearize.Config) linearize.Result {
			return linearize.CheckWorkQueue(c, "hands-twice", true, func() linearize.WorkQueue {
				return &handsTwice{TypedInterface: workqueue.NewTyped[int]()}
			})
		}},
		inOrder("drops-event", func() linearize.InOrderQueue {
			q := realFIFO()
			return &dropsEvent{RealFIFO: q, update: dropsWrite(q.Update)}
		}),
		inOrder("reorders", func() linearize.InOrderQueue { return &reorders{RealFIFO: realFIFO()} }),
		fifoQ("drops-add", func() linearize.FIFO {
			q := cache.NewFIFO(linearize.FIFOKeyFunc)
			return &dropsAdd{FIFO: q, add: dropsWrite(q.Add)}
		}),
		fifoQ("pops-twice", func() linearize.FIFO { return &popsTwice{FIFO: cache.NewFIFO(linearize.FIFOKeyFunc)} }),
	}, append(brokenDeltaFIFOs(), brokenRateLimiting()...)...)
}

// dropsWrite wraps a queue's write so that every seventh call is lost yet
// reports success: the write a broken queue forgets.
func dropsWrite(write func(obj any) error) func(obj any) error {
	var calls atomic.Int64
	return func(obj any) error {
		if calls.Add(1)%7 == 0 {
			return nil
		}
		return write(obj)
	}
}

// dropsAdd loses every seventh Add.
type dropsAdd struct {
	*cache.FIFO
	add func(obj any) error // dropsWrite of the FIFO's Add
}

func (q *dropsAdd) Add(obj any) error { return q.add(obj) }

// popsTwice queues every fifth popped object again, so it is handed out
// twice.
type popsTwice struct {
	*cache.FIFO
	n atomic.Int64
}

func (q *popsTwice) Pop(process cache.PopProcessFunc) (any, error) {
	obj, err := q.FIFO.Pop(process)
	if err == nil && q.n.Add(1)%5 == 0 {
		_ = q.FIFO.Add(obj)
	}
	return obj, err
}

// dropsEvent loses every seventh Update.
type dropsEvent struct {
	*cache.RealFIFO
	update func(obj any) error // dropsWrite of the RealFIFO's Update
}

func (q *dropsEvent) Update(obj any) error { return q.update(obj) }

// reorders holds every third Add back until the next write, which it
// queues first.
type reorders struct {
	*cache.RealFIFO
	mu   sync.Mutex
	n    int
	held any
}

func (q *reorders) Add(obj any) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n++; q.n%3 == 0 && q.held == nil {
		q.held = obj
		return nil
	}
	return q.write(q.RealFIFO.Add, obj)
}

func (q *reorders) Update(obj any) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.write(q.RealFIFO.Update, obj)
}

func (q *reorders) Delete(obj any) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.write(q.RealFIFO.Delete, obj)
}

// write queues obj, then the held Add behind it.
func (q *reorders) write(w func(any) error, obj any) error {
	err := w(obj)
	if q.held != nil {
		_ = q.RealFIFO.Add(q.held)
		q.held = nil
	}
	return err
}

// dropsItem loses every seventh Add.
type dropsItem struct {
	workqueue.TypedInterface[int]
	n atomic.Int64
}

func (q *dropsItem) Add(it int) {
	if q.n.Add(1)%7 != 0 {
		q.TypedInterface.Add(it)
	}
}

// handsTwice hands every fifth Get the item the previous Get handed out,
// which another worker may still be processing.
type handsTwice struct {
	workqueue.TypedInterface[int]
	mu   sync.Mutex
	n    int
	last int
	has  bool
}

func (q *handsTwice) Get() (int, bool) {
	q.mu.Lock()
	q.n++
	if q.n%5 == 0 && q.has {
		it := q.last
		q.mu.Unlock()
		return it, false
	}
	q.mu.Unlock()
	it, shut := q.TypedInterface.Get()
	q.mu.Lock()
	q.last, q.has = it, !shut
	q.mu.Unlock()
	return it, shut
}

// forgetsDirty is a queue whose Done drops an item added while it was
// processed (the re-queue client-go's Done does), built on a set of
// pending adds it discards.
type forgetsDirty struct {
	workqueue.TypedInterface[int]
	mu         sync.Mutex
	processing map[int]bool
}

func (q *forgetsDirty) Add(it int) {
	q.mu.Lock()
	busy := q.processing[it]
	q.mu.Unlock()
	if !busy {
		q.TypedInterface.Add(it)
	}
}

func (q *forgetsDirty) Get() (int, bool) {
	it, shut := q.TypedInterface.Get()
	if !shut {
		q.mu.Lock()
		if q.processing == nil {
			q.processing = map[int]bool{}
		}
		q.processing[it] = true
		q.mu.Unlock()
	}
	return it, shut
}

func (q *forgetsDirty) Done(it int) {
	q.mu.Lock()
	delete(q.processing, it)
	q.mu.Unlock()
	q.TypedInterface.Done(it)
}

// pick chooses which entry a naivePQ hands out: an index into entries, or
// -1 for none.
type pick func(entries []pqEntry, processing map[int]bool) int

type pqEntry struct{ item, prio int }

func ready(e pqEntry, processing map[int]bool) bool { return !processing[e.item] }

// pickLIFO: highest priority, but the newest of it first.
func pickLIFO(es []pqEntry, p map[int]bool) int {
	best := -1
	for i, e := range es {
		if ready(e, p) && (best < 0 || e.prio >= es[best].prio) {
			best = i
		}
	}
	return best
}

// pickOldest: FIFO, priorities ignored.
func pickOldest(es []pqEntry, p map[int]bool) int {
	return slices.IndexFunc(es, func(e pqEntry) bool { return ready(e, p) })
}

// pickProcessing: the right order, but it forgets that an item being
// processed must wait for its Done.
func pickProcessing(es []pqEntry, _ map[int]bool) int {
	best := -1
	for i, e := range es {
		if best < 0 || e.prio > es[best].prio {
			best = i
		}
	}
	return best
}

// naivePQ is a one-mutex priority queue whose hand-out rule is a pick.
type naivePQ struct {
	mu         sync.Mutex
	cond       *sync.Cond
	entries    []pqEntry
	processing map[int]bool
	shut       bool
	pick       pick
}

func newNaivePQ(p pick) *naivePQ {
	q := &naivePQ{processing: map[int]bool{}, pick: p}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *naivePQ) AddWithOpts(o priorityqueue.AddOpts, items ...int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	prio := 0
	if o.Priority != nil {
		prio = *o.Priority
	}
	for _, it := range items {
		i := slices.IndexFunc(q.entries, func(e pqEntry) bool { return e.item == it })
		if i >= 0 {
			if q.entries[i].prio >= prio {
				continue
			}
			q.entries = slices.Delete(q.entries, i, i+1)
		}
		q.entries = append(q.entries, pqEntry{it, prio})
	}
	q.cond.Broadcast()
}

func (q *naivePQ) GetWithPriority() (int, int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.shut {
			return 0, 0, true
		}
		if i := q.pick(q.entries, q.processing); i >= 0 {
			e := q.entries[i]
			q.entries = slices.Delete(q.entries, i, i+1)
			q.processing[e.item] = true
			return e.item, e.prio, false
		}
		q.cond.Wait()
	}
}

func (q *naivePQ) Done(it int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, it)
	q.cond.Broadcast()
}

func (q *naivePQ) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shut = true
	q.cond.Broadcast()
}

// nonAtomicReplace replaces key by key, yielding between keys, so a
// reader can see a store half old, half new.
type nonAtomicReplace struct{ cache.ThreadSafeStore }

func (s nonAtomicReplace) Replace(items map[string]any, _ string) {
	for _, k := range s.ListKeys() {
		if _, keep := items[k]; !keep {
			s.Delete(k)
			runtime.Gosched()
		}
	}
	for k, obj := range items {
		s.Update(k, obj)
		runtime.Gosched()
	}
}

// losesUpdate drops every fifth Update.
type losesUpdate struct {
	cache.ThreadSafeStore
	n atomic.Int64
}

func (s *losesUpdate) Update(key string, obj any) {
	if s.n.Add(1)%5 != 0 {
		s.ThreadSafeStore.Update(key, obj)
	}
}

package workq

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"unsafe"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/internal/cacheline"
	"github.com/queuelab/queuelab/internal/mpmc"
	"github.com/queuelab/queuelab/internal/shard"
)

var _ workqueue.TypedInterface[string] = (*Ring[string])(nil)

const (
	// defaultRingCapacity holds a busy controller's backlog in one segment
	// of the lock-free queue (≈ 8 bytes a slot plus its sequence number:
	// 128 KiB), reused lap after lap without allocating.
	defaultRingCapacity = 8192
	maxRingCapacity     = 1 << 24
)

// The counts word packs everything Get, Len and ShutDownWithDrain must see
// consistently, so each queue operation changes it with one atomic add:
// bit 63 is set once the queue shuts down, bits 32–62 count queued items
// (accepted by Add or re-queued by Done, not yet handed out) and bits 0–31
// count items being processed.
const (
	shutBit   = uint64(1) << 63
	queuedOne = uint64(1) << 32
	countMask = shutBit - 1
	procMask  = queuedOne - 1
	// Adding these moves one item between the counts; -x is written ^(x-1).
	getDelta     = ^(queuedOne - 2) // queued → processing: +1 - queuedOne
	requeueDelta = queuedOne - 1    // processing → queued
	doneDelta    = ^uint64(0)       // processing → idle: -1
	rejectDelta  = ^(queuedOne - 1) // take back an unused reservation
)

func queuedOf(w uint64) uint64 { return (w & countMask) >> 32 }

// poppedDirty is a Ring entry's state between a Get's pop and its mark
// when an Add came in that window: the item has left the ready queue, so
// the Add counts as one made while it is processing, and the Get marks it
// processingDirty.
const poppedDirty = processingDirty + 1

// ringEntry is an item's state for the Ring queue. The ring carries entries,
// not items, so Get changes the state without a map lookup.
type ringEntry[T comparable] struct {
	item  T
	state atomic.Uint32 // queued, poppedDirty, processing or processingDirty
	// pos is the entry's position in the ready queue from its last push,
	// so an Add that finds it queued can ask the queue whether a Get has
	// already popped it. Written and read under the stripe's lock.
	pos uint64
}

// ringStripe holds the entries of the items hashed to it. Add and Done
// change an entry under the stripe's lock; Get moves it from queued to
// processing without it.
type ringStripe[T comparable] struct {
	mu      sync.Mutex
	entries index[T, *ringEntry[T]]
	free    []*ringEntry[T] // released entries, item cleared, for reuse
}

type paddedRingStripe[T comparable] struct {
	ringStripe[T]
	// The stripe's size does not depend on T (a mutex, an int and
	// slices), so any instantiation gives the constant padding.
	_ [(cacheline.Size - unsafe.Sizeof(ringStripe[struct{}]{})%cacheline.Size) % cacheline.Size]byte
}

var _ = [1]struct{}{}[unsafe.Sizeof(paddedRingStripe[string]{})%cacheline.Size]

// Ring is a work queue whose ready items travel through a lock-free MPMC
// queue of rings (mpmc.Queue), which keeps them in FIFO order queue-wide
// while many producers and consumers push and pop at once. Each item's
// state lives in an entry in one of several lock-striped maps (items
// hashed over 4×GOMAXPROCS stripes): idle (no entry) → queued → processing
// → processing+dirty → queued … → idle. Get takes no lock: it pops an entry
// and marks it processing. Add and Done lock only their item's stripe, so
// producers and workers on different items rarely meet on a lock. The pop
// is the instant the item is handed out: an Add that finds the entry still
// queued asks the ready queue whether its position was popped, and if so
// marks it (poppedDirty) for the Get to make processing+dirty, so no Add
// made after the pop is lost.
//
// Backlog: a backlog beyond one ring's capacity (a relist's worth of keys)
// goes into further rings linked behind it, still lock-free; Add neither
// blocks nor drops. Order is FIFO except between Adds that overlap in time,
// which have no order to keep.
//
// Shutdown and drain: one atomic word counts queued and processing items and
// carries the shutdown bit (see counts). Add reserves its item's count
// before it marks the item queued and pushes it, and gives the reservation
// back if the bit was already set, so after ShutDown no new item is
// accepted, Get reports shutdown only when nothing accepted is still queued
// or on its way into the ring, and ShutDownWithDrain with
// Options.DrainQueued waits for both counts to reach zero. Without it the
// drain waits, as client-go's, only until nothing is processing; a Get
// between its pop and its count has taken its item but is not yet counted
// processing, so that drain also waits until the counted queued items are
// all in the ring (see nothingProcessing).
//
// Memory: Done of an item not added again meanwhile deletes its entry and
// clears it, as client-go forgets an item at Done, so the queue keeps no
// processed item reachable. The cleared entry goes on its stripe's free
// list, so a steady stream of Adds and Dones allocates nothing; a stripe
// with nothing live whose free list grew beyond shrinkAbove drops it and
// its map, as Mutex's table does.
//
// Parked Gets wait on a gate (see shutGate) and are woken one per new item.
type Ring[T comparable] struct {
	_      [cacheline.Size]byte
	counts atomic.Uint64
	_      [cacheline.Size - 8]byte

	ready *mpmc.Queue[*ringEntry[T]]

	stripes []paddedRingStripe[T]
	mask    uint64       // len(stripes)-1
	seed    maphash.Seed // hashes items for their stripe and its index

	drainQueued bool          // Options.DrainQueued
	phase       atomic.Uint32 // ringOpen, ringClosing or ringSettled: see settle
	gate        shutGate
	metrics     *keyedMetrics[T] // nil without Options.MetricsProvider
}

// NewRing returns an empty Ring queue. It takes Options.Capacity and the
// metrics Options.
func NewRing[T comparable](opts Options) (*Ring[T], error) {
	m, err := opts.check("NewRing", false, true)
	if err != nil {
		return nil, err
	}
	capacity := opts.Capacity
	if capacity == 0 {
		capacity = defaultRingCapacity
	}
	ready, err := mpmc.NewQueue[*ringEntry[T]](capacity)
	if err != nil {
		return nil, err
	}
	n := shard.DefaultCount()
	q := &Ring[T]{ready: ready, stripes: make([]paddedRingStripe[T], n), mask: uint64(n - 1), seed: maphash.MakeSeed(), drainQueued: opts.DrainQueued}
	q.gate.Init()
	q.metrics = newKeyedMetrics[T](m)
	return q, nil
}

// Add marks item as needing processing (see Mutex.Add).
//
// An Add that will queue the item first reserves a place in the counts, and
// only then creates its entry, queued: once another Add can see the entry
// (and return, deduplicated), the item is certain to be pushed. The reverse
// order would let a racing ShutDown make this Add roll its entry back after
// a concurrent Add had already counted on it, losing an Add that completed
// before the shutdown. It pushes the entry before it unlocks the stripe, so
// an Add that finds the entry queued and returns leaves the item where Get
// takes it: items keep the order of their first Add, as in client-go.
// Done re-queues under the lock the same way.
func (q *Ring[T]) Add(item T) {
	if q.counts.Load()&shutBit != 0 {
		return
	}
	h, s := q.locate(item)
	s.mu.Lock()
	c, ok := s.entries.slot(h, item)
	if !ok {
		if !q.reserve() {
			s.mu.Unlock()
			return // shut down meanwhile
		}
		e := s.insert(c, h, item)
		q.metrics.marked(item)
		// Push before unlocking: another Add of the item that sees the
		// entry queued returns at once, and the item must then be where
		// Get takes it, ahead of anything added after that Add returned.
		q.enqueue(e)
		s.mu.Unlock()
		if ringAddReleased != nil {
			ringAddReleased()
		}
		q.gate.Wake(1)
		q.pushedAfterShutdown()
		return
	}
	q.markAgain(s.entries.at(c), item)
	s.mu.Unlock()
}

// markAgain records an Add of item, whose entry e exists: an item waiting in
// the ready queue is already pending, one handed out is marked for Done to
// re-queue. Called with e's stripe locked.
//
// An Add that passed Add's shutdown check before a ShutDown must not mark
// its item after it, or Done would hand out again an item client-go drops.
// The stripe's lock does not hold off a ShutDown, nor a Get (neither takes
// it), so the shutdown bit is read after everything the mark depends on:
// clear then, it was clear when the Add saw the item popped or processing,
// and the mark counts as made at that instant, before the shutdown.
func (q *Ring[T]) markAgain(e *ringEntry[T], item T) {
	if ringAddMarking != nil {
		ringAddMarking()
	}
	st := e.state.Load()
	if st == uint32(queued) {
		// The state was read first, so if the queue has not popped e's
		// position by now, e was queued and still in the queue at that
		// instant: this Add is a duplicate.
		if !q.ready.Popped(e.pos) || q.ShuttingDown() {
			return
		}
		// A Get has popped e and not yet marked it processing: leave the
		// mark to it (with the metrics, which must see the hand-out
		// first), unless it has just done so.
		if e.state.CompareAndSwap(uint32(queued), uint32(poppedDirty)) {
			return
		}
		st = e.state.Load()
	}
	if st == uint32(processing) && !q.ShuttingDown() {
		// Only Done (under this lock) moves an entry off processing.
		e.state.Store(uint32(processingDirty))
		q.metrics.marked(item)
	}
	// poppedDirty or processingDirty: already pending.
}

// ringAddReleased, nil outside tests, is called by an Add that queued its
// item once it has released the item's stripe: the point where another Add
// of the item can first see it and return.
var ringAddReleased func()

// ringAddMarking, nil outside tests, is called by an Add that found its
// item's entry, with the stripe locked, before markAgain reads anything.
var ringAddMarking func()

// ringGetPopped, nil outside tests, is called by a Get between its pop of
// an entry and its mark of it as processing.
var ringGetPopped func()

// locate returns item's hash and its stripe: the stripe from the hash's top
// bits, the stripe's index probing from its low ones.
func (q *Ring[T]) locate(item T) (uint64, *paddedRingStripe[T]) {
	h := hashOf(q.seed, item)
	return h, &q.stripes[(h>>48)&q.mask]
}

// insert gives item (hash h) an entry, queued, in cell c that
// entries.slot returned. Called with s.mu held.
func (s *ringStripe[T]) insert(c int, h uint64, item T) *ringEntry[T] {
	var e *ringEntry[T]
	if n := len(s.free); n > 0 {
		e = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		e = new(ringEntry[T])
	}
	e.item = item
	e.state.Store(uint32(queued))
	s.entries.insertAt(c, h, item, e)
	return e
}

// release forgets e's item, held in index cell c that Done's probe found
// (so it is removed without probing again), and keeps e for reuse, or
// drops the stripe's storage once nothing is live in it and its free list
// grew beyond shrinkAbove. Called with s.mu held.
func (s *ringStripe[T]) release(c int, e *ringEntry[T]) {
	s.entries.removeAt(c)
	var zero T
	e.item = zero // dropped for the GC
	s.free = append(s.free, e)
	if s.entries.len() == 0 && len(s.free) > shrinkAbove {
		s.entries, s.free = index[T, *ringEntry[T]]{}, nil
	}
}

// reserve counts one more queued item, or reports false (and takes the
// count back) if the queue is shut down.
func (q *Ring[T]) reserve() bool {
	if q.counts.Add(queuedOne)&shutBit != 0 {
		q.unreserve()
		return false
	}
	return true
}

// unreserve takes back a reservation made after the queue shut down, and
// wakes the Gets and drains (WakeAll) that may have waited for it; a drain
// without DrainQueued may have waited for it with items still queued.
func (q *Ring[T]) unreserve() {
	q.wakeIfShutAndEmpty(q.counts.Add(rejectDelta))
	if !q.drainQueued {
		q.gate.notifyIdle()
	}
}

// pushedAfterShutdown wakes a drain without DrainQueued after an Add that
// reserved before the shutdown pushed its item: the drain may have seen the
// reservation counted but not yet in the ring and waited for it (see
// nothingProcessing). A drain with DrainQueued counts the reservation as
// queued, so its wait ends at a Done, not here. Outside a drain it costs
// notifyIdle's load of the gate's draining flag, which only a shutdown
// writes: the Add pushed before that load, so a drain that set the flag
// later reads the ring after the push.
func (q *Ring[T]) pushedAfterShutdown() {
	if !q.drainQueued {
		q.gate.notifyIdle()
	}
}

// enqueue pushes e, which the caller reserved and moved to queued, and
// notes its position for markAgain. Called with e's stripe locked; the
// caller wakes a Get.
func (q *Ring[T]) enqueue(e *ringEntry[T]) { e.pos = q.ready.Push(e) }

// Len returns the number of queued items: the ready queue's length, exact
// at one instant, like client-go's. (The counts word runs ahead of the
// queue for an Add between its reservation and its push, and behind it for
// a Get between its pop and its count, so it serves Get's and drain's waits
// but not Len.) An Add still on its way into the ring may be ordered after
// a Len that misses its item, but not after a shutdown (see settle), so Len
// reads the shutdown bit after its snapshot: clear, the shutdown comes after
// the snapshot; set, Len settles the queue and looks again.
func (q *Ring[T]) Len() int {
	settled := q.phase.Load() == ringSettled
	n := q.ready.Len()
	if settled || q.counts.Load()&shutBit == 0 {
		return n
	}
	q.settle()
	return q.ready.Len()
}

// The phases of a Ring's shutdown. ringClosing is set before the shutdown
// bit, so an operation that begins after anything saw the bit sees it.
const (
	ringOpen uint32 = iota
	ringClosing
	ringSettled
)

// settle waits, once the shutdown bit is set, until every Add accepted
// before it has pushed its item. Such an Add reserved before the bit, so
// it counts as made before the shutdown, as client-go's Add that took the
// lock first: once anything has seen the queue shut down (an Add dropped,
// ShutDown returned), a Len must count its item and a Done that re-queues
// must queue behind it. An Add reserves and pushes under its item's stripe
// lock, so taking each stripe's lock once is the wait; no Add reserves
// after the bit, so the first settle to finish marks the queue settled and
// later calls cost one load. Called with no stripe locked.
func (q *Ring[T]) settle() {
	if q.phase.Load() != ringClosing || q.counts.Load()&shutBit == 0 {
		return // open (nothing has seen the bit), or settled already
	}
	for i := range q.stripes {
		s := &q.stripes[i]
		s.mu.Lock()
		s.mu.Unlock() // nothing to do under it: only waited for
	}
	q.phase.Store(ringSettled)
}

// getSpins is how many times Get looks again, without parking, while the
// counts show an item queued that the ring does not yet hand out: another
// goroutine is then a step or two from done (an Add between its
// reservation and its push, a Get between its pop and its count, an Add
// taking back a reservation after a shutdown). Past that, the goroutine
// may have been descheduled, and Get parks until it is done.
const getSpins = 64

// Get hands out the oldest queued item, blocking while there is none; it
// reports shutdown once the queue is shut down and nothing accepted is left.
func (q *Ring[T]) Get() (item T, shutdown bool) {
	for spins := 0; ; spins++ {
		e, ok := q.ready.TryPop()
		if !ok {
			w := q.counts.Load()
			switch {
			case queuedOf(w) == 0 && w&shutBit != 0:
				return item, true
			case queuedOf(w) > 0 && spins < getSpins:
				continue
			}
			if e, ok = q.park(); !ok {
				spins = 0
				continue
			}
		}
		// Only this Get moves the popped entry on (an Add may first mark
		// it poppedDirty), and Done (which may reuse it) comes after Get
		// returns: read the item first all the same. The metrics see the
		// hand-out before they see an Add mark it again.
		item = e.item
		q.metrics.handedOut(item)
		if ringGetPopped != nil {
			ringGetPopped()
		}
		if !e.state.CompareAndSwap(uint32(queued), uint32(processing)) {
			// poppedDirty: an Add came after the pop (see markAgain).
			e.state.Store(uint32(processingDirty))
			q.metrics.marked(item)
		}
		q.wakeIfShutAndEmpty(q.counts.Add(getDelta))
		return item, false
	}
}

// park blocks the calling Get until it pops an entry (returned) or the queue
// is shut down with nothing queued. The pop is tried under the gate's mutex
// after the Get registered as parked, and every push wakes a parked Get
// once it has made its entry visible, so no push is missed; a Get woken
// without an entry (another took it) looks again.
func (q *Ring[T]) park() (e *ringEntry[T], ok bool) {
	q.gate.Park(func() bool {
		if e, ok = q.ready.TryPop(); ok {
			return true
		}
		w := q.counts.Load()
		return w&shutBit != 0 && queuedOf(w) == 0
	})
	return e, ok
}

// wakeIfShutAndEmpty wakes the parked Gets and drains once the counts word
// w, just written, shows the queue shut down with nothing queued: a Get may
// have parked while an item was still counted queued, and must now report
// shutdown.
func (q *Ring[T]) wakeIfShutAndEmpty(w uint64) {
	if w&shutBit != 0 && queuedOf(w) == 0 {
		q.gate.WakeAll()
	}
}

// Done marks the processing of item finished (see Mutex.Done): it re-queues
// an item added meanwhile and releases any other.
func (q *Ring[T]) Done(item T) {
	if q.phase.Load() == ringClosing {
		q.settle() // a re-queue goes behind the Adds accepted before the shutdown
	}
	h, s := q.locate(item)
	s.mu.Lock()
	q.metrics.finished(item)
	if s.entries.len() == 0 {
		s.mu.Unlock()
		return
	}
	c, ok := s.entries.find(h, item)
	if !ok {
		s.mu.Unlock()
		return
	}
	switch e := s.entries.at(c); e.state.Load() {
	case uint32(processing):
		s.release(c, e)
		s.mu.Unlock()
		if q.drained(q.counts.Add(doneDelta)) {
			q.gate.notifyIdle()
		}
	case uint32(processingDirty):
		// Count, then push before unlocking, as Add does: an Add that
		// sees the entry queued must find it in the queue (markAgain
		// reads its position).
		e.state.Store(uint32(queued))
		w := q.counts.Add(requeueDelta)
		q.enqueue(e)
		s.mu.Unlock()
		q.gate.Wake(1)
		if q.drained(w) {
			q.gate.notifyIdle() // the item is in the ring: see nothingProcessing
		}
	default: // queued or poppedDirty, not handed out yet: ignore, as Mutex does
		s.mu.Unlock()
	}
}

// ShutDown makes the queue ignore new items and ends any ShutDownWithDrain
// wait; Get hands out what is queued, then reports shutdown.
func (q *Ring[T]) ShutDown() {
	q.phase.CompareAndSwap(ringOpen, ringClosing)
	q.counts.Or(shutBit)
	q.gate.close(false)
	q.metrics.halt()
}

// ShutDownWithDrain shuts the queue down, then waits until nothing is
// processing (with Options.DrainQueued: queued or processing), or until
// ShutDown is called (see Mutex).
func (q *Ring[T]) ShutDownWithDrain() {
	q.phase.CompareAndSwap(ringOpen, ringClosing)
	q.counts.Or(shutBit)
	q.gate.close(true)
	q.metrics.halt()
	if q.drainQueued {
		q.gate.waitDrained(func() bool { return q.counts.Load()&countMask == 0 })
	} else {
		q.gate.waitDrained(q.nothingProcessing)
	}
}

// drained reports whether the counts word w, just written by a Done, may
// let a drain return, so that Done wakes it: both counts zero with
// DrainQueued, no item processing without.
func (q *Ring[T]) drained(w uint64) bool {
	if q.drainQueued {
		return w&countMask == 0
	}
	return w&procMask == 0
}

// nothingProcessing reports whether, at one instant during the call, no
// item was processing and no Get was between its pop and its count: the
// moment client-go's drain returns at, seeing its processing set empty. The
// processing count alone misses a Get that has popped an item and not yet
// counted it (the item would be handed out after the drain returned, though
// Len no longer showed it queued), so it also requires the queued count to
// match the ring's length, read between two equal loads of the counts. If
// it does, the ring's length was taken at an instant with nothing
// processing and nothing on its way into or out of the ring: after the
// shutdown the counts change only by a Get (queued → processing), a
// re-queue (processing → queued), a Done (processing −1) and a refused
// reservation (queued +1, then −1), and equal loads with nothing processing
// leave no room for any of them to be half done at that instant. Every
// half-done step that makes it false ends with a wake of the drain: a
// Done's, a pushed re-queue's or Add's (pushedAfterShutdown), unreserve's.
func (q *Ring[T]) nothingProcessing() bool {
	w := q.counts.Load()
	if w&procMask != 0 {
		return false
	}
	n := q.ready.Len()
	return queuedOf(w) == uint64(n) && q.counts.Load() == w
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Ring[T]) ShuttingDown() bool { return q.counts.Load()&shutBit != 0 }

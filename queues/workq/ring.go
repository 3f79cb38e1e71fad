package workq

import (
	"runtime"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/util/workqueue"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/queuelab/queuelab/internal/cacheline"
	"github.com/queuelab/queuelab/internal/mpmc"
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
	// Adding these moves one item between the counts; -x is written ^(x-1).
	getDelta     = ^(queuedOne - 2) // queued → processing: +1 - queuedOne
	requeueDelta = queuedOne - 1    // processing → queued
	doneDelta    = ^uint64(0)       // processing → idle: -1
	rejectDelta  = ^(queuedOne - 1) // take back an unused reservation
)

func queuedOf(w uint64) uint64 { return (w & countMask) >> 32 }

// Ring entry states beyond the table's: idleRecent is idle, processed
// since the last sweep (the sweep's second chance, as table.recent); evicted
// was idle, has been (or is being) removed from the map, and must not be
// used again.
const (
	idleRecent = uint32(vacant) + 1 + iota
	evicted
)

// ringEntry is an item's state for the Ring queue. The ring carries entries,
// not items, so Get changes the state without a map lookup.
type ringEntry[T comparable] struct {
	item  T
	state atomic.Uint32 // a state, or evicted
}

// Ring is a work queue whose ready items travel through a lock-free MPMC
// queue of rings (mpmc.Queue), with each item's state in a concurrent map
// and changed by compare-and-swap: idle → queued → processing →
// processing+dirty → queued … → idle. Add, Get and Done take no lock on
// their hot path (an Add that inserts a new item takes the map's bucket
// lock; a Get that parks, and the producer that wakes it, the gate's).
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
// or on its way into the ring, and ShutDownWithDrain waits for both counts
// to reach zero.
//
// Memory: entries of idle items stay in the map as a cache, so re-added keys
// reuse them without allocating. They are swept by the rule and within the
// bound of Mutex's table (see table): the insert that grows the map by
// max(retention budget, entries the last sweep kept) since
// that sweep evicts the idle entries not processed since the sweep before
// (by CAS to evicted, so a racing Add retries with a fresh entry) and gives
// the others a second chance (idleRecent → idle). Done marks an entry recent
// with the CAS it makes anyway.
//
// The map is xsync's generic Map rather than sync.Map: no boxing of T into
// interfaces, and a measured Load of a string key (the lookup Add and Done
// do) of 14 ns against 35 ns at 1024 keys and 28 ns against 103 ns at
// 100 000 keys on the lab's 2-core machine; its DeleteMatching also gives
// the sweep an atomic check-and-delete per entry.
//
// Parked Gets wait on a gate (see gate) and are woken one per new item.
type Ring[T comparable] struct {
	_      [cacheline.Size]byte
	counts atomic.Uint64
	_      [cacheline.Size - 8]byte

	ready *mpmc.Queue[*ringEntry[T]]

	states  *xsync.Map[T, *ringEntry[T]]
	entries atomic.Int64 // entries in states
	kept    atomic.Int64 // entries the last sweep left
	sweepMu sync.Mutex

	gate gate
}

// NewRing returns an empty Ring queue. It accepts WithCapacity.
func NewRing[T comparable](opts ...Option) (*Ring[T], error) {
	o, err := buildOptions("NewRing", opts, "WithCapacity")
	if err != nil {
		return nil, err
	}
	capacity := o.capacity
	if capacity == 0 {
		capacity = defaultRingCapacity
	}
	ready, err := mpmc.NewQueue[*ringEntry[T]](capacity)
	if err != nil {
		return nil, err
	}
	q := &Ring[T]{ready: ready, states: xsync.NewMap[T, *ringEntry[T]]()}
	q.gate.init()
	return q, nil
}

// Add marks item as needing processing (see Mutex.Add).
//
// An Add that will queue the item first reserves a place in the counts, and
// only then moves the entry to queued: once another Add can see the entry
// queued (and return, deduplicated), the item is certain to be pushed. The
// reverse order would let a racing ShutDown make this Add roll its entry
// back after a concurrent Add had already counted on it, losing an Add that
// completed before the shutdown — the drain stress caught exactly that.
func (q *Ring[T]) Add(item T) {
	if q.counts.Load()&shutBit != 0 {
		return
	}
	for {
		e, ok := q.states.Load(item)
		if ok {
			switch s := e.state.Load(); s {
			case uint32(idle), idleRecent:
				reserved := q.reserve()
				if !reserved {
					return // shut down meanwhile
				}
				if e.state.CompareAndSwap(s, uint32(queued)) {
					q.enqueue(e)
					return
				}
				q.unreserve() // lost a race: look again
				continue
			case uint32(processing):
				if e.state.CompareAndSwap(s, uint32(processingDirty)) {
					return
				}
				continue
			case evicted:
				// Being deleted by the sweeper under the bucket lock
				// LoadOrCompute takes: insert a fresh entry below.
			default: // queued or processingDirty: already pending
				return
			}
		}
		reserved := q.reserve()
		if !reserved {
			return
		}
		// Insert under the map's bucket lock; the entry is born queued.
		var inserted bool
		e, _ = q.states.LoadOrCompute(item, func() (*ringEntry[T], bool) {
			inserted = true
			fresh := &ringEntry[T]{item: item}
			fresh.state.Store(uint32(queued))
			return fresh, false
		})
		if inserted {
			q.inserted()
			q.enqueue(e)
			return
		}
		q.unreserve() // someone else inserted it: look again
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

// unreserve takes back a reservation that was not used.
func (q *Ring[T]) unreserve() {
	if q.counts.Add(rejectDelta)&countMask == 0 {
		q.gate.notifyIdle()
	}
}

// enqueue pushes e, which the caller reserved and moved to queued.
func (q *Ring[T]) enqueue(e *ringEntry[T]) {
	q.ready.Push(e)
	q.gate.wake()
}

// Len returns the number of queued items.
func (q *Ring[T]) Len() int { return int(queuedOf(q.counts.Load())) }

// Get hands out the oldest queued item, blocking while there is none; it
// reports shutdown once the queue is shut down and nothing accepted is left.
func (q *Ring[T]) Get() (item T, shutdown bool) {
	for {
		if e, ok := q.ready.TryPop(); ok {
			e.state.Store(uint32(processing)) // only Get moves an entry off queued
			q.counts.Add(getDelta)
			return e.item, false
		}
		w := q.counts.Load()
		switch {
		case queuedOf(w) > 0:
			// Reserved but not yet pushed (or pushed but not yet
			// published), popped but not yet uncounted, or a reservation
			// about to be taken back: another goroutine is a step or two
			// from done.
			runtime.Gosched()
		case w&shutBit != 0:
			return item, true
		default:
			q.gate.park(q.available)
		}
	}
}

func (q *Ring[T]) available() bool {
	w := q.counts.Load()
	return queuedOf(w) > 0 || w&shutBit != 0
}

// Done marks the processing of item finished (see Mutex.Done).
func (q *Ring[T]) Done(item T) {
	e, ok := q.states.Load(item)
	if !ok {
		return
	}
	for {
		switch s := e.state.Load(); s {
		case uint32(processing):
			if e.state.CompareAndSwap(s, idleRecent) {
				if q.counts.Add(doneDelta)&countMask == 0 {
					q.gate.notifyIdle()
				}
				return
			}
		case uint32(processingDirty):
			if e.state.CompareAndSwap(s, uint32(queued)) {
				q.counts.Add(requeueDelta)
				q.enqueue(e)
				return
			}
		default: // not being processed: ignore, as Mutex does
			return
		}
	}
}

// inserted accounts for a new map entry and sweeps the map when it has
// grown enough since the last sweep
// (see Ring). The sweep marks an idle entry evicted and deletes it under the
// map's bucket lock, so an Add holding that entry sees evicted and inserts a
// fresh one; it moves idleRecent entries to idle, a CAS that fails
// harmlessly when an Add takes the entry first.
func (q *Ring[T]) inserted() {
	n := q.entries.Add(1)
	kept := q.kept.Load()
	if n < kept+max(idleRetention, kept) || !q.sweepMu.TryLock() {
		return
	}
	defer q.sweepMu.Unlock()
	swept := q.states.DeleteMatching(func(_ T, e *ringEntry[T]) (bool, bool) {
		if e.state.CompareAndSwap(idleRecent, uint32(idle)) {
			return false, false
		}
		return e.state.CompareAndSwap(uint32(idle), evicted), false
	})
	q.kept.Store(q.entries.Add(-int64(swept)))
}

// ShutDown makes the queue ignore new items and ends any ShutDownWithDrain
// wait; Get hands out what is queued, then reports shutdown.
func (q *Ring[T]) ShutDown() {
	q.counts.Or(shutBit)
	q.gate.close(false)
}

// ShutDownWithDrain shuts the queue down, then waits until nothing is queued
// or processing, or until ShutDown is called (see Mutex).
func (q *Ring[T]) ShutDownWithDrain() {
	q.counts.Or(shutBit)
	q.gate.close(true)
	q.gate.waitDrained(q.idle)
}

func (q *Ring[T]) idle() bool { return q.counts.Load()&countMask == 0 }

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Ring[T]) ShuttingDown() bool { return q.counts.Load()&shutBit != 0 }

package inorder

import (
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/mpmc"
)

// LockFree is an in-order FIFO whose writers take no lock: Add, Update,
// Delete, Bookmark, Resync and Replace push into a lock-free MPMC queue of
// rings (internal/mpmc). Only the queue's first write (or first Replace)
// locks, once, to count what HasSynced waits for. Consumers take events
// under a mutex writers never touch, and process them unlocked. Atomic mode
// only (see the package doc).
//
// Order: events come out in the order their pushes completed; pushes that
// overlap in time (concurrent writers) have no order between them, exactly
// as two writers racing for client-go's lock have none.
type LockFree struct {
	core
	q *mpmc.Queue[cache.Delta]
	// queued counts events pushed (or being pushed) and not yet taken; it
	// drops under cmu.
	queued atomic.Int64
	closed atomic.Bool

	// cmu serializes consumers and guards the consumer side of core, held
	// (the event peeked but not yet taken) and the first Replace's count.
	cmu    sync.Mutex
	held   cache.Delta
	isHeld bool

	// popMu serializes the first write's bookkeeping (populate).
	popMu         sync.Mutex
	populatedFast atomic.Bool

	// Sleeping consumers wait on wake; writers signal only when sleepers is
	// non-zero, so a busy queue's writers touch nothing but the MPMC queue.
	sleepMu  sync.Mutex
	wake     sync.Cond
	sleepers atomic.Int32
}

var _ Queue = (*LockFree)(nil)

// lockFreeSegment is the MPMC queue's ring size: a steady backlog below it
// never allocates.
const lockFreeSegment = 1024

// NewLockFree returns an empty LockFree queue configured by opts, or
// ErrUnsupportedMode for per-object mode or LockWhileProcessing.
func NewLockFree(opts Options) (*LockFree, error) {
	s, err := opts.settings()
	if err != nil {
		return nil, err
	}
	if s.perObject || !s.unlocked {
		return nil, fmt.Errorf("%w: LockFree implements atomic mode with unlocked processing only", ErrUnsupportedMode)
	}
	mq, err := mpmc.NewQueue[cache.Delta](lockFreeSegment)
	if err != nil {
		return nil, err
	}
	q := &LockFree{q: mq}
	q.init(q, s, "inorder.LockFree")
	q.wake.L = &q.sleepMu
	return q, nil
}

func (q *LockFree) write(t cache.DeltaType, obj any) error {
	if !q.populatedFast.Load() {
		q.populate(nil)
	}
	d, err := q.event(t, obj)
	if err != nil {
		return err
	}
	q.push(d)
	return nil
}

// populate runs the first write's bookkeeping once, under popMu and cmu so
// the count of initial events is exact. replace is the first Replace's
// event (nil for an Add, Update or Delete): it is pushed here and counted
// with what was queued before it.
//
// The Replace event is enqueued under cmu, so no consumer can take it
// before it is counted: one that did would find nothing initial, and the
// count taken afterwards would call the queue synced while that consumer
// was still processing the list. Sleepers are woken after cmu is released,
// since a sleeper holds sleepMu while it takes cmu.
func (q *LockFree) populate(replace *cache.Delta) {
	q.popMu.Lock()
	defer q.popMu.Unlock()
	if q.populatedFast.Load() {
		if replace != nil {
			q.push(*replace)
		}
		return
	}
	q.cmu.Lock()
	n := 0
	if replace != nil {
		q.enqueue(*replace)
		n = int(q.queued.Load())
	}
	q.sync.populate(n)
	q.cmu.Unlock()
	q.populatedFast.Store(true)
	q.wakeSleepers()
}

func (q *LockFree) push(d cache.Delta) {
	q.enqueue(d)
	q.wakeSleepers()
}

// enqueue makes d visible to consumers and counts it.
func (q *LockFree) enqueue(d cache.Delta) {
	q.queued.Add(1)
	q.q.Push(d)
}

// wakeSleepers wakes consumers waiting in sleep, if any.
func (q *LockFree) wakeSleepers() {
	if q.sleepers.Load() > 0 {
		q.sleepMu.Lock()
		q.wake.Broadcast()
		q.sleepMu.Unlock()
	}
}

// Bookmark queues a Bookmark event carrying rv, unless bookmarks are off.
func (q *LockFree) Bookmark(rv string) error {
	if q.s.bookmarks {
		q.push(cache.Delta{Type: cache.Bookmark, Object: cache.BookmarkInfo{ResourceVersion: rv}})
	}
	return nil
}

// Replace queues one ReplacedAll event for the relist; on error nothing is
// queued.
func (q *LockFree) Replace(list []any, rv string) error {
	d, err := q.replacedAll(list, rv)
	if err != nil {
		return err
	}
	if q.populatedFast.Load() {
		q.push(d)
	} else {
		q.populate(&d)
	}
	return nil
}

// Resync queues one SyncAll event.
func (q *LockFree) Resync() error {
	q.push(cache.Delta{Type: cache.SyncAll, Object: cache.SyncAllInfo{}})
	return nil
}

// Close wakes every blocked Pop; events still queued are handed out first.
func (q *LockFree) Close() {
	q.closed.Store(true)
	q.sleepMu.Lock()
	q.wake.Broadcast()
	q.sleepMu.Unlock()
}

func (q *LockFree) pop(batch cache.ProcessBatchFunc, single cache.PopProcessFunc) (any, error) {
	for {
		q.cmu.Lock()
		initial := !q.sync.synced.Load()
		run := q.take(lockFreeSource{q}, batch != nil)
		k := q.sync.taken(len(run))
		q.queued.Add(-int64(len(run))) // under cmu, so the first Replace's count is exact
		q.cmu.Unlock()
		if len(run) > 0 {
			return deliver(run, initial, k, batch, single, &q.sync)
		}
		if q.closed.Load() && q.queued.Load() == 0 {
			return nil, cache.ErrFIFOClosed
		}
		q.sleep()
	}
}

// inFlightChecks bounds how often a consumer that finds nothing visible
// while an event is counted in queued (a push between its count and its
// publication) looks again before it parks: such a push is normally done
// within a few looks, and parking costs both sides a futex call.
const inFlightChecks = 64

// sleep waits until an event may be there, or the queue is closed with
// nothing left to hand out. A writer that pushed before sleepers rose is
// seen by the emptiness check; one that pushes after sees sleepers and
// wakes us under sleepMu. That holds for a push still in flight when Close
// has spent its wake-up too, so a closed queue parks like an open one.
func (q *LockFree) sleep() {
	for range inFlightChecks {
		if q.queued.Load() == 0 || !q.emptyForConsumer() {
			break
		}
	}
	q.sleepMu.Lock()
	q.sleepers.Add(1)
	for q.emptyForConsumer() && !(q.closed.Load() && q.queued.Load() == 0) {
		q.wake.Wait()
	}
	q.sleepers.Add(-1)
	q.sleepMu.Unlock()
}

// emptyForConsumer: nothing held and nothing visible in the MPMC queue.
// isHeld is read under cmu: another consumer may be taking events (and
// holding one) while this one goes to sleep.
func (q *LockFree) emptyForConsumer() bool {
	q.cmu.Lock()
	held := q.isHeld
	q.cmu.Unlock()
	return !held && q.q.Empty()
}

// lockFreeSource is the MPMC queue plus the consumer's held event, as take
// sees them; q.cmu is held.
type lockFreeSource struct{ q *LockFree }

func (s lockFreeSource) peek() (cache.Delta, bool) {
	q := s.q
	if !q.isHeld {
		d, ok := q.q.TryPop()
		if !ok {
			return cache.Delta{}, false
		}
		q.held, q.isHeld = d, true
	}
	return q.held, true
}

func (s lockFreeSource) drop() { s.q.held, s.q.isHeld = cache.Delta{}, false }

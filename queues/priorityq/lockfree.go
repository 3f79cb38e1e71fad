package priorityq

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/queuelab/queuelab/internal/cacheline"
	"github.com/queuelab/queuelab/internal/mpmc"
	"github.com/queuelab/queuelab/queues/internal/gate"
)

var _ PriorityQueue[string] = (*LockFree[string])(nil)

// LockFree is a priority queue whose add, get and done take no lock: each
// item's state (queued, processing, dirty, and its priority) is one
// immutable value that the item's record points to and that every change
// replaces by CAS, records are found in a concurrent map, and ready items
// wait in one lock-free MPMC queue per priority, scanned highest first by
// Get.
//
// A queued item is pushed with the state it was queued in, and a push is
// live only while the record still points to that state: raising a queued
// item's priority pushes it again at the new priority with a new state and
// installs that state; the old push is recognised as stale and dropped when it comes
// out. Because a state is identified by its address, which the garbage
// collector never reuses while a push refers to it, there is no generation
// counter to wrap and the priority is a full int.
//
// An Add returns only once Get can take its item at its priority, as
// controller-runtime's does. A new item's state (and a Done's, for an item
// queued again) is installed before it is pushed, so an add that finds the
// item queued by an add still on its way pushes the state too (the first
// pop wins, the twin is stale). A raise pushes its state before installing
// it, so that the item never leaves Get's sight, and a Get that pops that
// entry first installs the raise itself. A Get never passes a ring whose
// first slot a push has taken but not yet filled (entries of adds that
// returned may wait behind it), and one that meets a stale entry of an item
// queued again scans again from the top. A Get takes an item when it pops
// its entry, before it marks it processing: an add that finds the item
// queued but popped marks it to be queued again by its Done (see taken).
// Before it pops, a Get checks that no push completed since at a level it
// passed as empty, else it scans again (see scan).
//
// An item added while processed is marked dirty and pushed by its Done, at
// the tail of its priority. A waiting item made ready by a plain add also goes to the tail.
// So, unlike Mutex and controller-runtime, those two keep no earlier place
// (priorityqtest.Guarantees.KeepsPosition false); otherwise ready items go out by
// priority and FIFO within one (between adds that overlap in time, in
// either order).
//
// Priority levels are made on first use and retired once they have stayed
// empty between two sweeps, which Get runs when it passes more than
// lfIdleLevels empty levels or finds nothing at all, and a new level runs
// when there are more than lfIdleLevels; so Get's scan and the levels held
// are bounded by the priorities in use, not by those ever used.
//
// Delayed items are kept off the hot path, in a Mutex-style engine behind a
// lock with one timer; a plain add takes that lock only for an item that
// waits there, which it finds in a concurrent set of the waiting items. Each new item allocates its record (its first state inside), and
// each raise or re-add while processed one state; Done drops the record, so
// the queue holds nothing of an item once it is Done (pooling records would
// let an add holding a stale record mistake another item's state for its
// own).
type LockFree[T comparable] struct {
	front[T, *lockFreeCore[T]]
}

type lockFreeCore[T comparable] struct {
	_      [cacheline.Size]byte
	counts atomic.Uint64 // shutBit | queued | pending | processing, see the shifts
	_      [cacheline.Size - 8]byte

	levels  atomic.Pointer[[]*lfLevel[T]] // highest priority first; copied on change
	levelMu sync.Mutex                    // serialises level inserts and sweeps
	levelID uint64                        // the last level's id; under levelMu

	recs *xsync.Map[T, *lfRec[T]]

	delay   part[T]                 // waiting items; its lock guards them
	delayed atomic.Int64            // items waiting in delay
	waiting *xsync.Map[T, struct{}] // the items in delay, for a lock-free look-up; written under its lock

	s        settings[T]
	g        gate.Gate
	draining atomic.Bool // a ShutDownWithDrain waits, and no ShutDown ended it
	refresh  *refresher
}

// counts fields: queued counts ready items plus reservations about to
// become ready; pending the items marked dirty while processed; processing
// the items handed out.
const (
	queuedOne     = 1
	pendingOne    = 1 << 28
	processingOne = 1 << 45
	fieldMask     = 1<<17 - 1
	shutBit       = 1 << 63
)

func queuedOf(w uint64) uint64     { return w & (1<<28 - 1) }
func pendingOf(w uint64) uint64    { return w >> 28 & fieldMask }
func processingOf(w uint64) uint64 { return w >> 45 & fieldMask }

// state flags.
const (
	fQueued     = 1
	fProcessing = 2
	fDirty      = 4
	fDead       = 8 // dropped by Done: look the item up again
)

// lfState is one state of a record; but for pushed, it is never modified
// once published, so a record's state pointer says everything about it in
// one load. States without a priority that no push refers to are shared.
type lfState struct {
	flags uint8
	prio  int // while queued or dirty
	// pushed is set once a queued state is in its level's ring, where Get
	// finds it. Installing the state and pushing it are two steps; an add
	// that finds the item queued reads pushed to know whether Get can take
	// it yet (see visibleNow).
	pushed atomic.Bool
	// from is the queued state a raise replaces: a raise pushes its state
	// before installing it, so that the item never leaves Get's sight, and
	// a Get that pops the raise's entry while the record is still in from
	// installs the raise itself (see scan).
	from *lfState
	// installed is set by a Get that installed this raise for its adder.
	installed atomic.Bool
	// level and pos say where a push put the state: the id of its level
	// and 1 + the lowest ring position of its pushes (0 before any push
	// returned); popped is set by a Get right after it pops an entry of
	// the state. With them an add that finds the item queued learns
	// whether a Get has popped it and is about to hand it out (see taken).
	level  atomic.Uint64
	pos    atomic.Uint64
	popped atomic.Bool
}

var (
	lfProcessing = &lfState{flags: fProcessing}
	lfDead       = &lfState{flags: fDead}
)

type lfRec[T comparable] struct {
	key       T
	st        atomic.Pointer[lfState]
	first     lfState      // the state of the add that made the record
	addedAt   atomic.Int64 // metrics: ns since base + 1, 0 when unset
	startedAt atomic.Int64
}

// lfEntry is one push of a record; it is live while the record is still in
// the state it was pushed with.
type lfEntry[T comparable] struct {
	r  *lfRec[T]
	st *lfState
}

// lfLevel is the ring of one priority. n counts its entries, pushed or
// being pushed, and not yet popped; a sweep retires the level by swapping
// n from 0 to lfRetired, after which no push lands there. pushing counts
// the pushes inside the ring's Push: a push that took its slot but has not
// yet filled it keeps every later entry of the ring from Get (see scan).
type lfLevel[T comparable] struct {
	prio    int
	id      uint64 // unique to this level: a priority used again gets a new level
	n       atomic.Int64
	pushing atomic.Int64
	done    atomic.Uint64 // pushes completed: a scan that passed the level checks it (see scan)
	hot     atomic.Bool   // pushed to since the last sweep
	q       *mpmc.Queue[lfEntry[T]]
}

const lfRetired = -1 << 62

// lfIdleLevels is how many empty levels a Get passes before it sweeps.
const lfIdleLevels = 8

// lfSegment is how many entries one ring of a level holds before the level
// links another: small, because a retired level's ring is dropped and a
// priority used again gets a new one.
const lfSegment = 256

// NewLockFree returns an empty LockFree queue. It refuses Options.Shards.
func NewLockFree[T comparable](o Options[T]) (*LockFree[T], error) {
	s, err := o.resolve("NewLockFree", false)
	if err != nil {
		return nil, err
	}
	c := &lockFreeCore[T]{recs: xsync.NewMap[T, *lfRec[T]](), waiting: xsync.NewMap[T, struct{}](), s: s}
	c.levels.Store(new([]*lfLevel[T]))
	c.g.Init()
	c.delay.e.init(nil)
	c.delay.readied = c.promote
	if s.metrics != nil {
		c.refresh = s.metrics.start(c.unfinished)
	}
	return &LockFree[T]{front[T, *lockFreeCore[T]]{c: c, limiter: s.limiter, yield: s.yield}}, nil
}

func (c *lockFreeCore[T]) now() int64 { return c.delay.e.now() + 1 }

// find returns the index in levels (highest priority first) of prio's
// level, or where it would go.
func find[T comparable](levels []*lfLevel[T], prio int) (int, bool) {
	return slices.BinarySearchFunc(levels, prio, func(l *lfLevel[T], p int) int {
		switch {
		case l.prio > p:
			return -1
		case l.prio < p:
			return 1
		}
		return 0
	})
}

// level returns prio's level, making it on first use or after its
// retirement. The level a lock-free look-up finds may be retired by the
// time the caller pushes; the caller then asks again, and this time finds
// it under the lock, where the published levels are never retired.
func (c *lockFreeCore[T]) level(prio int, retired bool) *lfLevel[T] {
	if !retired {
		cur := *c.levels.Load()
		if i, ok := find(cur, prio); ok {
			return cur[i]
		}
	}
	c.levelMu.Lock()
	defer c.levelMu.Unlock()
	cur := *c.levels.Load()
	i, ok := find(cur, prio)
	if ok {
		return cur[i]
	}
	q, err := mpmc.NewQueue[lfEntry[T]](lfSegment)
	if err != nil {
		panic(err) // lfSegment is a valid constant
	}
	c.levelID++
	l := &lfLevel[T]{prio: prio, id: c.levelID, q: q}
	l.hot.Store(true) // its first push is on its way
	next := slices.Insert(slices.Clone(cur), i, l)
	c.levels.Store(&next)
	if len(next) > lfIdleLevels {
		c.sweepLocked() // levels below the ones Gets pass must not pile up either
	}
	return l
}

// sweep retires the levels that are empty and were not pushed to since the
// previous sweep, and marks the others as not pushed to. A sweep already
// under way makes it return at once.
func (c *lockFreeCore[T]) sweep() {
	if !c.levelMu.TryLock() {
		return
	}
	defer c.levelMu.Unlock()
	c.sweepLocked()
}

// sweepLocked is sweep with levelMu held.
func (c *lockFreeCore[T]) sweepLocked() {
	cur := *c.levels.Load()
	keep := 0
	for _, l := range cur {
		if l.n.Load() == 0 && !l.hot.Load() && l.n.CompareAndSwap(0, lfRetired) {
			continue
		}
		if l.hot.Load() {
			l.hot.Store(false)
		}
		keep++
	}
	if keep == len(cur) {
		return
	}
	next := make([]*lfLevel[T], 0, keep)
	for _, l := range cur {
		if l.n.Load() >= 0 {
			next = append(next, l)
		}
	}
	c.levels.Store(&next)
}

// reserve adds delta to counts unless the queue is shut down.
func (c *lockFreeCore[T]) reserve(delta uint64) bool {
	if c.counts.Add(delta)&shutBit != 0 {
		c.release(delta)
		return false
	}
	return true
}

// release takes back counts and, after shutdown, wakes drains and
// draining Gets when that may end their wait.
func (c *lockFreeCore[T]) release(delta uint64) {
	if w := c.counts.Add(-delta); w&shutBit != 0 && queuedOf(w) == 0 {
		c.g.WakeAll()
	}
}

// push makes r, in state st, visible to Get at st's priority.
func (c *lockFreeCore[T]) push(r *lfRec[T], st *lfState) {
	l := c.level(st.prio, false)
	for l.n.Add(1) < 0 {
		l = c.level(st.prio, true)
	}
	if !l.hot.Load() {
		l.hot.Store(true)
	}
	l.pushing.Add(1)
	pos := l.q.Push(lfEntry[T]{r: r, st: st}) + 1
	l.done.Add(1)
	st.level.Store(l.id)
	for old := st.pos.Load(); (old == 0 || pos < old) && !st.pos.CompareAndSwap(old, pos); old = st.pos.Load() {
	}
	st.pushed.Store(true)
	wake := 1
	if l.pushing.Add(-1) == 0 {
		// The entries pushed behind a slot being filled were out of reach,
		// and the Gets their pushes woke may have parked again.
		wake = max(wake, int(l.n.Load()))
	}
	c.g.Wake(wake)
}

// visibleNow is called by an add that found r queued in state st, at a
// priority at least its own, and so has nothing to change: it makes sure
// that Get can take the item before the add returns, as controller-runtime
// promises (once Add returns, the item is ready at its priority). The add,
// raise or Done that installed st may not have pushed it yet; then this add
// pushes it too rather than wait for that one. Whichever of the two entries
// a Get pops first hands the item out; the other is stale by then (the
// record has left st, and a state is never installed twice) and is dropped.
func (c *lockFreeCore[T]) visibleNow(r *lfRec[T], st *lfState) {
	if !st.pushed.Load() {
		c.push(r, st)
	}
}

// counted records metrics for an item that became ready.
func (c *lockFreeCore[T]) counted(r *lfRec[T], prio int) {
	if m := c.s.metrics; m != nil {
		m.add(prio)
		r.addedAt.CompareAndSwap(0, c.now())
	}
}

func (c *lockFreeCore[T]) add(o AddOpts, item T) {
	if c.counts.Load()&shutBit != 0 {
		return
	}
	prio := priority(o)
	if after := c.s.delay(o, item); after > 0 {
		c.addLater(item, prio, after)
		return
	}
	if c.delayed.Load() > 0 {
		if _, ok := c.waiting.Load(item); ok { // the lock only for an item that waits
			if p, ok := c.unwait(item); ok {
				prio = max(prio, p)
			}
		}
	}
	c.addNow(item, prio)
}

func (c *lockFreeCore[T]) addAll(o AddOpts, items []T) {
	for _, item := range items {
		c.add(o, item)
	}
}

// addLater puts item in the delay line, unless it is ready already (queued,
// or queued again while processed), in which case only its priority may
// rise, as in controller-runtime.
func (c *lockFreeCore[T]) addLater(item T, prio int, after time.Duration) {
	if m := c.s.metrics; m != nil {
		m.retries.Inc()
	}
	if r, ok := c.recs.Load(item); ok && r.st.Load().flags&(fQueued|fDirty) != 0 {
		c.addNow(item, prio)
		return
	}
	c.delay.mu.Lock()
	if !c.delay.closed {
		c.delay.e.add(item, prio, after)
		c.waiting.Store(item, struct{}{})
		c.delayed.Store(int64(c.delay.e.waiting.Len()))
		c.delay.arm()
	}
	c.delay.mu.Unlock()
	// An add without delay that looked for item in waiting before the Store
	// made it ready meanwhile; it stays ready, as if this add came first.
	if r, ok := c.recs.Load(item); ok && r.st.Load().flags&(fQueued|fDirty) != 0 {
		if p, ok := c.unwait(item); ok {
			c.addNow(item, p)
		}
	}
}

// unwait takes item out of the delay line, if it waits there, and returns
// its priority.
func (c *lockFreeCore[T]) unwait(item T) (int, bool) {
	c.delay.mu.Lock()
	defer c.delay.mu.Unlock()
	p, ok := c.delay.e.cancel(item)
	if ok {
		c.waiting.Delete(item)
		c.delayed.Add(-1)
	}
	return p, ok
}

// promote hands the delay line's due items to addNow; it is the delay
// part's readied hook, called under its lock.
func (c *lockFreeCore[T]) promote(int) {
	for {
		item, prio, ok := c.delay.e.pop()
		if !ok {
			break
		}
		c.delay.e.done(item)
		c.waiting.Delete(item)
		c.addNow(item, prio)
	}
	c.delayed.Store(int64(c.delay.e.waiting.Len()))
}

// insert gives item a fresh queued record at prio in place of old, its
// dead record, or of none (old nil). It reports false, having changed
// nothing, when another record took the place first; true when it is done,
// the queue being shut down included.
func (c *lockFreeCore[T]) insert(item T, old *lfRec[T], prio int) bool {
	if !c.reserve(queuedOne) {
		return true
	}
	var fresh *lfRec[T]
	c.recs.Compute(item, func(cur *lfRec[T], loaded bool) (*lfRec[T], xsync.ComputeOp) {
		if loaded && cur != old {
			return cur, xsync.CancelOp
		}
		fresh = &lfRec[T]{key: item, first: lfState{flags: fQueued, prio: prio}}
		fresh.st.Store(&fresh.first)
		return fresh, xsync.UpdateOp
	})
	if fresh == nil {
		c.release(queuedOne)
		return false
	}
	c.counted(fresh, prio)
	c.push(fresh, &fresh.first)
	return true
}

// raised records a raise in the metrics.
func (c *lockFreeCore[T]) raised(from, to int) {
	if m := c.s.metrics; m != nil {
		m.raise(from, to)
	}
}

// lfRaisePushed and lfScanPassed, when set by a test, run between a
// raise's push and its install, and after a scan passed a level, to force
// what may happen there.
var lfRaisePushed, lfScanPassed func()

// addNow makes item ready at prio, or raises it to prio.
func (c *lockFreeCore[T]) addNow(item T, prio int) {
	var raise *lfState // the raise pushed by the last round, if any
	for {
		// A Get installed the raise: it sets the flag before it moves the
		// record on, so it is seen whatever came next, even a Done that
		// dropped the record (an insert then would queue the item twice).
		if raise != nil && raise.installed.Load() {
			c.raised(raise.from.prio, prio)
			return
		}
		r, ok := c.recs.Load(item)
		if !ok {
			if c.insert(item, nil, prio) {
				return
			}
			continue // someone else inserted it: look again
		}
		s := r.st.Load()
		if raise != nil && s == raise { // installed, the flag on its way
			c.raised(raise.from.prio, prio)
			return
		}
		switch {
		case s.flags&fDead != 0:
			// Its Done is deleting it: take its place rather than wait.
			if c.insert(item, r, prio) {
				return
			}
		case s.flags&fQueued != 0 && c.taken(s):
			if c.addTaken(r, s, prio) {
				return
			}
		case s.flags&fQueued != 0:
			if prio <= s.prio {
				c.visibleNow(r, s)
				return
			}
			// Push first: until the CAS the old entry is live, from then
			// on this one. Should the CAS fail, the entry stays stale.
			raise = &lfState{flags: fQueued, prio: prio, from: s}
			c.push(r, raise)
			if lfRaisePushed != nil {
				lfRaisePushed()
			}
			if c.taken(s) { // popped meanwhile: the raise comes too late
				if c.addTaken(r, s, prio) {
					return
				}
				continue
			}
			if r.st.CompareAndSwap(s, raise) {
				c.raised(s.prio, prio)
				return
			}
		case s.flags&fDirty != 0: // processing, queued again already
			if prio <= s.prio {
				return
			}
			// from stays: a Get that popped the state it replaces may
			// still have to take this one over (see claim).
			if r.st.CompareAndSwap(s, &lfState{flags: fProcessing | fDirty, prio: prio, from: s.from}) {
				c.raised(s.prio, prio)
				return
			}
		default: // processing
			if !c.reserve(pendingOne) {
				return
			}
			if r.st.CompareAndSwap(s, &lfState{flags: fProcessing | fDirty, prio: prio}) {
				c.counted(r, prio)
				return
			}
			c.release(pendingOne)
		}
	}
}

// taken reports whether a Get has popped an entry of st, r's queued state:
// that Get hands the item out, whether or not it has marked it processing
// yet, for the pop is where Get takes an item (other Gets no longer see
// it). The ring's Popped is exact at the instant it reads the head, so an
// add that reads false here ordered its look before the pop; popped covers
// a twin push (see visibleNow) whose position is not recorded yet. A level
// retired since the push held no entry of st any more.
func (c *lockFreeCore[T]) taken(st *lfState) bool {
	if st.popped.Load() {
		return true
	}
	pos := st.pos.Load()
	if pos == 0 {
		return false // no push returned: no entry can have been popped
	}
	levels := *c.levels.Load()
	i, ok := find(levels, st.prio)
	return !ok || levels[i].id != st.level.Load() || levels[i].q.Popped(pos-1)
}

// addTaken is an add at prio of r's item while a Get that popped s, its
// queued state, has yet to mark it processing: as for an item processed,
// it marks the item to be queued again at prio by its Done, leaving s as
// from so that the Get takes the new state over (see claim). It reports
// false when the state moved on first.
func (c *lockFreeCore[T]) addTaken(r *lfRec[T], s *lfState, prio int) bool {
	if !c.reserve(pendingOne) {
		return true
	}
	if r.st.CompareAndSwap(s, &lfState{flags: fProcessing | fDirty, prio: prio, from: s}) {
		c.counted(r, prio)
		return true
	}
	c.release(pendingOne)
	return false
}

// claim marks the item of e, an entry a Get popped, processing, and
// returns the priority it is handed out at; ok is false when e is stale.
// The item is still in e's state, or in the raise e pushed that its adder
// has yet to install (the Get installs it; a Get that popped the state it
// replaces then finds its entry stale), or marked queued again by adds
// that came after the pop (see addTaken).
func (c *lockFreeCore[T]) claim(e lfEntry[T]) (prio int, ok bool) {
	for {
		s := e.r.st.Load()
		switch {
		case s == e.st:
			if e.r.st.CompareAndSwap(s, lfProcessing) {
				c.counts.Add(processingOne - queuedOne)
				c.handedOut(e.r, s.prio)
				return s.prio, true
			}
		case s == e.st.from:
			if e.r.st.CompareAndSwap(s, e.st) {
				e.st.installed.Store(true) // a raise whose adder has yet to install it
			}
		case s.from == e.st && s.flags&fProcessing != 0:
			if e.r.st.CompareAndSwap(s, &lfState{flags: s.flags, prio: s.prio}) {
				c.counts.Add(processingOne - queuedOne)
				c.handedOut(e.r, e.st.prio)
				c.requeuedAt(e.r)
				return e.st.prio, true
			}
		default:
			return 0, false // raised, queued again or handed out since
		}
	}
}

// pop takes the first live entry of the highest priority. It sweeps the
// levels when it passed more than lfIdleLevels empty ones or found nothing.
//
// A stale entry whose record is queued in another state is an item raised
// (or queued again) since that entry was pushed: it may now wait at a level
// this scan has passed, and its new state may not even be pushed yet, while
// its old entry is no longer live. Taking an item behind it at this level
// would hand out neither order's first, so pop makes the new state visible
// (see visibleNow) and scans again from the top.
func (c *lockFreeCore[T]) pop() (item T, prio int, ok bool) {
	for {
		item, prio, ok, again := c.scan()
		if !again {
			return item, prio, ok
		}
	}
}

// scan is one pass of pop; again reports that it met a moved item.
//
// A ring whose first slot is taken by a push still filling it yields
// nothing, though entries of adds that returned may wait behind that slot;
// taking an item of a lower priority then would overtake them, so scan
// stops there and Get waits for the push (see takeable).
//
// Levels that scan passed as empty may have been pushed to since, and an
// add at a lower level may have returned after such a push: taking its
// item would overtake a higher priority whose add came first. So before it
// pops, scan checks that no push to a level it passed completed since it
// looked (their done counts, read before it found them empty, are
// unchanged) and that no level was made or retired; else it scans again.
func (c *lockFreeCore[T]) scan() (item T, prio int, ok, again bool) {
	levels := c.levels.Load()
	var passed uint64 // the done counts of the levels passed, summed
	for empty, l := range *levels {
		done := l.done.Load()
		for l.n.Load() > 0 {
			if !c.unchanged(levels, empty, passed) {
				return item, 0, false, true
			}
			e, ok := c.popEntry(l)
			if !ok {
				if l.pushing.Load() > 0 {
					return item, 0, false, false // being pushed: wait for it
				}
				break // taken by Gets that have yet to count it
			}
			if prio, ok := c.claim(e); ok {
				if empty > lfIdleLevels {
					c.sweep()
				}
				return e.r.key, prio, true, false
			}
			if s := e.r.st.Load(); s.flags&fQueued != 0 {
				c.visibleNow(e.r, s)
				return item, 0, false, true
			}
		}
		passed += done
		if lfScanPassed != nil {
			lfScanPassed()
		}
	}
	if len(*levels) > 0 {
		c.sweep()
	}
	return item, 0, false, false
}

// unchanged reports whether levels is still the queue's and the first
// passed of them, the ones a scan passed, saw no push complete since their
// done counts summed to sum.
func (c *lockFreeCore[T]) unchanged(levels *[]*lfLevel[T], passed int, sum uint64) bool {
	if c.levels.Load() != levels {
		return false
	}
	for _, l := range (*levels)[:passed] {
		sum -= l.done.Load()
	}
	return sum == 0
}

// popEntry pops l's first entry, which hands its item out unless it is
// stale (see claim).
func (c *lockFreeCore[T]) popEntry(l *lfLevel[T]) (lfEntry[T], bool) {
	e, ok := l.q.TryPop()
	if ok {
		e.st.popped.Store(true)
		l.n.Add(-1)
	}
	return e, ok
}

func (c *lockFreeCore[T]) handedOut(r *lfRec[T], prio int) {
	m := c.s.metrics
	if m == nil {
		return
	}
	now := c.now()
	m.get(prio)
	if at := r.addedAt.Swap(0); at != 0 {
		m.latency.Observe(seconds(now - at))
	}
	r.startedAt.Store(now)
}

// requeuedAt starts the queue-latency clock of an item added again between
// a Get's pop and its claim (addTaken). That add's counted found the clock
// still running for the add being handed out, so it could not start it;
// without this the item's next hand-out would record no latency, where
// controller-runtime's queue records one per hand-out. The add came after
// the pop and before now, so the clock starts at most that window late.
func (c *lockFreeCore[T]) requeuedAt(r *lfRec[T]) {
	if c.s.metrics != nil {
		r.addedAt.CompareAndSwap(0, c.now())
	}
}

// lfSpins is how many times a Get looks again, while an item is reserved
// but not yet visible, before it parks.
const lfSpins = 16

// get never waits after shutdown: it reports shutdown at once or, with
// DrainOnShutdown, once nothing is queued. While items are counted as
// queued but none is visible (a push between its reservation and its ring,
// or a pop between its CAS and its count) it looks again a few times, then
// parks until a push makes one visible: push wakes a parked Get after its
// ring push, and park checks the rings after registering.
func (c *lockFreeCore[T]) get() (item T, prio int, shutdown bool) {
	for spins := 0; ; spins++ {
		if c.counts.Load()&shutBit != 0 && !c.s.drain {
			return item, 0, true
		}
		if item, prio, ok := c.pop(); ok {
			return item, prio, false
		}
		w := c.counts.Load()
		switch {
		case w&shutBit != 0 && queuedOf(w) == 0:
			return item, 0, true
		case queuedOf(w) > 0 && spins < lfSpins:
		default:
			spins = 0
			c.g.Park(func() bool {
				w := c.counts.Load()
				return c.takeable() || (w&shutBit != 0 && (queuedOf(w) == 0 || !c.s.drain))
			})
		}
	}
}

// takeable reports whether some level's ring holds an entry (perhaps a
// stale one, which the next pop drops) and no push is filling a slot of it,
// so that its first entry can be popped. A Get parks while every entry is
// behind a slot being filled; the push that fills the last such slot wakes
// Gets for the level's entries.
func (c *lockFreeCore[T]) takeable() bool {
	for _, l := range *c.levels.Load() {
		if !l.q.Empty() && l.pushing.Load() == 0 {
			return true
		}
	}
	return false
}

func (c *lockFreeCore[T]) done(item T) {
	r, ok := c.recs.Load(item)
	if !ok {
		return
	}
	for {
		s := r.st.Load()
		if s.flags&fProcessing == 0 {
			return // not being processed: ignore, as Mutex does
		}
		next := lfDead
		if s.flags&fDirty != 0 {
			next = &lfState{flags: fQueued, prio: s.prio}
		}
		if !r.st.CompareAndSwap(s, next) {
			continue
		}
		if m := c.s.metrics; m != nil {
			if at := r.startedAt.Swap(0); at != 0 {
				m.workDuration.Observe(seconds(c.now() - at))
			}
		}
		if next != lfDead {
			c.counts.Add(^uint64(pendingOne+processingOne-queuedOne) + 1) // pending and processing down, queued up
			c.push(r, next)
			return
		}
		// Stale pushes of the record (from raises) may sit in a lower
		// priority's ring until a Get drops them; they must not keep the
		// item. Nothing reads key once the record is dead.
		var zero T
		r.key = zero
		c.recs.Compute(item, func(old *lfRec[T], loaded bool) (*lfRec[T], xsync.ComputeOp) {
			if loaded && old == r {
				return nil, xsync.DeleteOp
			}
			return old, xsync.CancelOp
		})
		c.release(processingOne)
		return
	}
}

func (c *lockFreeCore[T]) len() int {
	w := c.counts.Load()
	return int(queuedOf(w) + pendingOf(w))
}

// idle reports whether counts w hold nothing queued, pending or processing.
func idle(w uint64) bool {
	return queuedOf(w) == 0 && pendingOf(w) == 0 && processingOf(w) == 0
}

func (c *lockFreeCore[T]) shutDown(drain bool) {
	c.draining.Store(drain && c.s.drain)
	c.counts.Or(shutBit)
	c.delay.mu.Lock()
	c.delay.close()
	c.waiting.Clear()
	c.delayed.Store(0)
	c.delay.mu.Unlock()
	c.g.WakeAll()
	c.g.WaitUntil(func() bool { return !c.draining.Load() || idle(c.counts.Load()) })
	c.refresh.halt()
}

func (c *lockFreeCore[T]) shuttingDown() bool { return c.counts.Load()&shutBit != 0 }

// unfinished sums the ages of the items being processed.
func (c *lockFreeCore[T]) unfinished(total, oldest *float64) {
	now := c.now()
	c.recs.Range(func(_ T, r *lfRec[T]) bool {
		if at := r.startedAt.Load(); at != 0 {
			age := seconds(now - at)
			*total += age
			*oldest = max(*oldest, age)
		}
		return true
	})
}

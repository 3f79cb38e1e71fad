package priorityq

import (
	"math"
	"runtime"
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
// item's state (queued, processing, dirty, its priority and a generation) is
// one word changed by CAS in a concurrent map, and ready items wait in one
// lock-free MPMC queue per priority, scanned highest first by Get.
//
// Raising a queued item's priority pushes it again at its new priority with
// a new generation; the old push is recognised as stale by its generation
// and dropped when it comes out. An item added while processed is marked
// dirty and pushed by its Done, at the tail of its priority. A waiting item
// made ready by a plain add also goes to the tail. So, unlike Mutex and
// controller-runtime, those two keep no earlier place (Guarantees
// KeepsPosition false); otherwise ready items go out by priority and FIFO
// within one (between adds that overlap in time, in either order).
//
// Delayed items are kept off the hot path, in a Mutex-style engine behind a
// lock with one timer; plain adds take that lock only while some delay is
// pending. Priorities are held in 32 bits: values outside int32 are clamped.
// Each new item allocates its state record, which Done drops, so the queue
// holds nothing of an item once it is Done (pooling records would let an
// add holding a stale record mistake another item's state for its own).
// Priority levels, once used, stay (one ring each).
type LockFree[T comparable] struct {
	front[T, *lockFreeCore[T]]
}

type lockFreeCore[T comparable] struct {
	_      [cacheline.Size]byte
	counts atomic.Uint64 // shutBit | queued | pending | processing, see the shifts
	_      [cacheline.Size - 8]byte

	levels  atomic.Pointer[[]lfLevel[T]] // highest priority first; copied on insert
	levelMu sync.Mutex                   // serialises level inserts

	recs *xsync.Map[T, *lfRec[T]]

	delay   part[T]      // waiting items; its lock guards them
	delayed atomic.Int64 // items waiting in delay

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

// record word: flags in bits 0-3, generation in 4-31, priority in 32-63.
const (
	fQueued     = 1
	fProcessing = 2
	fDirty      = 4
	fDead       = 8 // dropped by Done: look the item up again
	genMask     = 1<<28 - 1
)

func word(flags uint64, gen uint32, prio int32) uint64 {
	return flags | uint64(gen&genMask)<<4 | uint64(uint32(prio))<<32
}
func genOf(w uint64) uint32 { return uint32(w>>4) & genMask }
func prioOf(w uint64) int32 { return int32(uint32(w >> 32)) }

type lfRec[T comparable] struct {
	key       T
	w         atomic.Uint64
	addedAt   atomic.Int64 // metrics: ns since base + 1, 0 when unset
	startedAt atomic.Int64
}

// lfEntry is one push of a record; it is stale once the record's generation
// moved on.
type lfEntry[T comparable] struct {
	r   *lfRec[T]
	gen uint32
}

type lfLevel[T comparable] struct {
	prio int32
	q    *mpmc.Queue[lfEntry[T]]
}

// lfSegment is how many entries one ring of a level holds before the level
// links another.
const lfSegment = 1024

// NewLockFree returns an empty LockFree queue. It refuses Options.Shards.
func NewLockFree[T comparable](o Options[T]) (*LockFree[T], error) {
	s, err := o.resolve("NewLockFree", false)
	if err != nil {
		return nil, err
	}
	c := &lockFreeCore[T]{recs: xsync.NewMap[T, *lfRec[T]](), s: s}
	c.levels.Store(new([]lfLevel[T]))
	c.g.Init()
	c.delay.e.init(nil)
	c.delay.readied = c.promote
	if s.metrics != nil {
		c.refresh = s.metrics.start(c.unfinished)
	}
	return &LockFree[T]{front[T, *lockFreeCore[T]]{c: c, limiter: s.limiter}}, nil
}

func clamp(p int) int32 { return int32(max(math.MinInt32, min(math.MaxInt32, p))) }

func (c *lockFreeCore[T]) now() int64 { return c.delay.e.now() + 1 }

// level returns prio's queue, inserting it on first use.
func (c *lockFreeCore[T]) level(prio int32) *mpmc.Queue[lfEntry[T]] {
	for _, l := range *c.levels.Load() {
		if l.prio == prio {
			return l.q
		}
	}
	c.levelMu.Lock()
	defer c.levelMu.Unlock()
	cur := *c.levels.Load()
	i := 0
	for ; i < len(cur); i++ {
		if cur[i].prio == prio {
			return cur[i].q
		}
		if cur[i].prio < prio {
			break
		}
	}
	q, err := mpmc.NewQueue[lfEntry[T]](lfSegment)
	if err != nil {
		panic(err) // lfSegment is a valid constant
	}
	next := slices.Insert(slices.Clone(cur), i, lfLevel[T]{prio: prio, q: q})
	c.levels.Store(&next)
	return q
}

// reserve adds delta to counts unless the queue is shut down.
func (c *lockFreeCore[T]) reserve(delta uint64) bool {
	if c.counts.Add(delta)&shutBit != 0 {
		c.release(delta)
		return false
	}
	return true
}

// release takes back counts and wakes drains when that may end them.
func (c *lockFreeCore[T]) release(delta uint64) {
	if w := c.counts.Add(-delta); w&shutBit != 0 && idle(w) {
		c.g.WakeDrainers()
	}
}

func (c *lockFreeCore[T]) push(r *lfRec[T], gen uint32, prio int32) {
	c.level(prio).Push(lfEntry[T]{r: r, gen: gen})
	c.g.Wake(1)
}

// counted records metrics for an item that became ready.
func (c *lockFreeCore[T]) counted(r *lfRec[T], prio int32) {
	if m := c.s.metrics; m != nil {
		m.add(int(prio))
		r.addedAt.CompareAndSwap(0, c.now())
	}
}

func (c *lockFreeCore[T]) add(o AddOpts, item T) {
	if c.counts.Load()&shutBit != 0 {
		return
	}
	prio := clamp(priority(o))
	if after := c.s.delay(o, item); after > 0 {
		c.addLater(item, prio, after)
		return
	}
	if c.delayed.Load() > 0 {
		c.delay.mu.Lock()
		if p, ok := c.delay.e.cancel(item); ok {
			prio = max(prio, clamp(p))
			c.delayed.Add(-1)
		}
		c.delay.mu.Unlock()
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
func (c *lockFreeCore[T]) addLater(item T, prio int32, after time.Duration) {
	if m := c.s.metrics; m != nil {
		m.retries.Inc()
	}
	if r, ok := c.recs.Load(item); ok && r.w.Load()&(fQueued|fDirty) != 0 {
		c.addNow(item, prio)
		return
	}
	c.delay.mu.Lock()
	if !c.delay.closed {
		c.delay.e.add(item, int(prio), after)
		c.delayed.Store(int64(c.delay.e.waiting.Len()))
		c.delay.arm()
	}
	c.delay.mu.Unlock()
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
		c.addNow(item, clamp(prio))
	}
	c.delayed.Store(int64(c.delay.e.waiting.Len()))
}

// addNow makes item ready at prio, or raises it to prio.
func (c *lockFreeCore[T]) addNow(item T, prio int32) {
	for {
		r, ok := c.recs.Load(item)
		if !ok {
			if !c.reserve(queuedOne) {
				return
			}
			var fresh *lfRec[T]
			r, _ = c.recs.LoadOrCompute(item, func() (*lfRec[T], bool) {
				fresh = &lfRec[T]{key: item}
				fresh.w.Store(word(fQueued, 0, prio))
				return fresh, false
			})
			if r == fresh {
				c.counted(r, prio)
				c.push(r, 0, prio)
				return
			}
			c.release(queuedOne) // someone else inserted it: look again
			continue
		}
		w := r.w.Load()
		switch {
		case w&fDead != 0:
			runtime.Gosched() // its Done is deleting it
		case w&fQueued != 0:
			if prio <= prioOf(w) {
				return
			}
			gen := genOf(w) + 1
			if r.w.CompareAndSwap(w, word(fQueued, gen, prio)) {
				if m := c.s.metrics; m != nil {
					m.raise(int(prioOf(w)), int(prio))
				}
				c.push(r, gen, prio)
				return
			}
		case w&fDirty != 0: // processing, queued again already
			if prio <= prioOf(w) {
				return
			}
			if r.w.CompareAndSwap(w, word(fProcessing|fDirty, genOf(w), prio)) {
				if m := c.s.metrics; m != nil {
					m.raise(int(prioOf(w)), int(prio))
				}
				return
			}
		default: // processing
			if !c.reserve(pendingOne) {
				return
			}
			if r.w.CompareAndSwap(w, word(fProcessing|fDirty, genOf(w), prio)) {
				c.counted(r, prio)
				return
			}
			c.release(pendingOne)
		}
	}
}

// pop takes the first live entry of the highest priority.
func (c *lockFreeCore[T]) pop() (item T, prio int, ok bool) {
	for _, l := range *c.levels.Load() {
		for {
			e, ok := l.q.TryPop()
			if !ok {
				break
			}
			for {
				w := e.r.w.Load()
				if w&fQueued == 0 || genOf(w) != e.gen {
					break // stale: raised or handed out since
				}
				if e.r.w.CompareAndSwap(w, word(fProcessing, genOf(w), prioOf(w))) {
					c.counts.Add(processingOne - queuedOne)
					c.handedOut(e.r, prioOf(w))
					return e.r.key, int(prioOf(w)), true
				}
			}
		}
	}
	return item, 0, false
}

func (c *lockFreeCore[T]) handedOut(r *lfRec[T], prio int32) {
	m := c.s.metrics
	if m == nil {
		return
	}
	now := c.now()
	m.get(int(prio))
	if at := r.addedAt.Swap(0); at != 0 {
		m.latency.Observe(seconds(now - at))
	}
	r.startedAt.Store(now)
}

// get never waits after shutdown: it reports shutdown at once or, with
// DrainOnShutdown, once nothing is queued.
func (c *lockFreeCore[T]) get() (item T, prio int, shutdown bool) {
	for {
		if c.counts.Load()&shutBit != 0 && !c.s.drain {
			return item, 0, true
		}
		if item, prio, ok := c.pop(); ok {
			return item, prio, false
		}
		w := c.counts.Load()
		switch {
		case queuedOf(w) > 0:
			// Reserved but not yet pushed, or popped but not yet
			// uncounted: another goroutine is a step from done.
			runtime.Gosched()
		case w&shutBit != 0:
			return item, 0, true
		default:
			c.g.Park(func() bool {
				w := c.counts.Load()
				return queuedOf(w) > 0 || w&shutBit != 0
			})
		}
	}
}

func (c *lockFreeCore[T]) done(item T) {
	r, ok := c.recs.Load(item)
	if !ok {
		return
	}
	for {
		w := r.w.Load()
		if w&fProcessing == 0 {
			return // not being processed: ignore, as Mutex does
		}
		flags, gen := uint64(fDead), genOf(w)
		if w&fDirty != 0 {
			flags, gen = fQueued, gen+1
		}
		if !r.w.CompareAndSwap(w, word(flags, gen, prioOf(w))) {
			continue
		}
		if m := c.s.metrics; m != nil {
			if at := r.startedAt.Swap(0); at != 0 {
				m.workDuration.Observe(seconds(c.now() - at))
			}
		}
		if flags == fQueued {
			c.counts.Add(^uint64(pendingOne+processingOne-queuedOne) + 1) // pending and processing down, queued up
			c.push(r, gen, prioOf(w))
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

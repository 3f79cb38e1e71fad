package priorityq

import (
	"hash/maphash"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/queuelab/queuelab/internal/cacheline"
	"github.com/queuelab/queuelab/queues/internal/gate"
)

var _ PriorityQueue[string] = (*Sharded[string])(nil)

// Sharded is a priority queue whose items are spread by hash over shards,
// each a Mutex queue's engine with its own lock and timer, so producers and
// workers busy with different items rarely meet on a lock.
//
// Order: a Get hands out an item of the highest priority ready in any shard
// when it looks (each shard publishes its best priority in an atomic word
// that Get scans), so priorities are kept queue-wide; within one priority,
// items come out FIFO per shard only (guarantee.OrderPerShard): two items of
// equal priority in different shards may overtake each other. Every per-item
// guarantee (dedup, max priority, min delay, re-queue after Done, never two
// workers on one item) holds as in Mutex, because all of an item's state
// lives in its shard. With Shards: 1 its order is Mutex's exactly.
//
// Shutdown is two-phase: ShutDown closes every shard under its lock, which
// Add checks under the same lock, and only then sets the flag a draining Get
// (DrainOnShutdown) trusts to mean nothing more will arrive. So such a Get
// never reports shutdown while an accepted item is on its way.
type Sharded[T comparable] struct {
	front[T, *shardedCore[T]]
}

type shardedCore[T comparable] struct {
	shards   []paddedShard[T]
	seed     maphash.Seed // picks an item's shard: maphash.Comparable(seed, item) & mask
	mask     uint32
	s        settings[T]
	g        gate.Gate
	shut     atomic.Bool // every shard closed: no item arrives any more
	shutting atomic.Bool // ShutDown called
	draining atomic.Bool
	refresh  *refresher
}

// noTop is a shard's published priority when it has nothing eligible.
const noTop = math.MinInt64

// shardOf is one shard: its part plus what it publishes to Get's lock-free
// scan, written under the part's lock.
type shardOf[T comparable] struct {
	part[T]
	top   atomic.Int64  // priority of the item the shard's pop would hand out, or noTop
	rises atomic.Uint64 // times top rose, counted after the rise is stored (see tryPop)
	ready atomic.Int64  // e.ready
	busy  atomic.Bool   // !e.idle()
}

// paddedShard keeps neighbouring shards' locks and words on separate lines.
type paddedShard[T comparable] struct {
	shardOf[T]
	_ [cacheline.Size]byte
}

// NewSharded returns an empty Sharded queue with Options.Shards shards.
func NewSharded[T comparable](o Options[T]) (*Sharded[T], error) {
	s, err := o.resolve("NewSharded", true)
	if err != nil {
		return nil, err
	}
	c := &shardedCore[T]{
		shards: make([]paddedShard[T], s.shards),
		seed:   maphash.MakeSeed(),
		mask:   uint32(s.shards - 1),
		s:      s,
	}
	c.g.Init()
	for i := range c.shards {
		sh := &c.shards[i].shardOf
		sh.e.init(s.metrics)
		sh.top.Store(noTop)
		sh.readied = func(n int) {
			sh.publish()
			c.g.Wake(n)
		}
	}
	if s.metrics != nil {
		c.refresh = s.metrics.start(func(total, oldest *float64) {
			for i := range c.shards {
				sh := &c.shards[i]
				sh.mu.Lock()
				sh.e.unfinished(total, oldest)
				sh.mu.Unlock()
			}
		})
	}
	return &Sharded[T]{front[T, *shardedCore[T]]{c: c, limiter: s.limiter, yield: s.yield}}, nil
}

// publish refreshes the words Get scans; called with mu held, it writes a
// word only when its value changes, so a busy shard keeps its lines shared.
func (sh *shardOf[T]) publish() {
	top := int64(noTop)
	if p, ok := sh.e.topPriority(); ok {
		top = int64(p)
	}
	if old := sh.top.Load(); old != top {
		sh.top.Store(top)
		if top > old {
			sh.rises.Add(1)
		}
	}
	if r := int64(sh.e.ready); sh.ready.Load() != r {
		sh.ready.Store(r)
	}
	if b := !sh.e.idle(); sh.busy.Load() != b {
		sh.busy.Store(b)
	}
}

func (c *shardedCore[T]) shardFor(item T) *shardOf[T] {
	return &c.shards[uint32(maphash.Comparable(c.seed, item))&c.mask].shardOf
}

// addTo adds item to its shard and reports whether it became eligible.
func (c *shardedCore[T]) addTo(o AddOpts, item T) bool {
	sh := c.shardFor(item)
	sh.mu.Lock()
	eligible := !sh.closed && sh.part.add(&c.s, o, item)
	sh.publish()
	sh.mu.Unlock()
	return eligible
}

func (c *shardedCore[T]) add(o AddOpts, item T) {
	if c.addTo(o, item) {
		c.g.Wake(1)
	}
}

func (c *shardedCore[T]) addAll(o AddOpts, items []T) {
	n := 0
	for _, item := range items {
		if c.addTo(o, item) {
			n++
		}
	}
	c.g.Wake(n)
}

// tryPop scans the shards' published priorities from a random shard and
// pops from the one with the highest; it retries when it lost a race for it
// or when the scan may have missed a rise.
//
// The scan reads the shards one after another, not at one instant: a shard
// read early may rise before a shard read late receives the item the scan
// then picks (a raise that returned, then an add of a lower item), and no
// instant of the Get would have that item first. So the scan also sums each
// shard's count of rises, read before its top, and the pop goes ahead only
// if, with the chosen shard locked, the sum is unchanged and that shard
// still offers the priority chosen: then no shard rose between its two
// reads, and at the moment of the second sum every shard's top was at most
// the chosen one (a rise still being published belongs to an add that has
// not returned and is ordered after this Get).
func (c *shardedCore[T]) tryPop() (item T, prio int, ok bool) {
	for {
		best, at, rises := int64(noTop), -1, uint64(0)
		start := rand.Uint32()
		for k := range uint32(len(c.shards)) {
			i := (start + k) & c.mask
			sh := &c.shards[i]
			rises += sh.rises.Load()
			if t := sh.top.Load(); t > best {
				best, at = t, int(i)
			}
		}
		if at < 0 {
			return item, 0, false
		}
		sh := &c.shards[at].shardOf
		sh.mu.Lock()
		if sh.top.Load() == best && c.rises() == rises {
			item, prio, ok = sh.e.pop()
			sh.publish()
		}
		sh.mu.Unlock()
		if ok {
			return item, prio, true
		}
	}
}

// rises sums the shards' counts of rises.
func (c *shardedCore[T]) rises() uint64 {
	n := uint64(0)
	for i := range c.shards {
		n += c.shards[i].rises.Load()
	}
	return n
}

func (c *shardedCore[T]) anyEligible() bool {
	for i := range c.shards {
		if c.shards[i].top.Load() != noTop {
			return true
		}
	}
	return false
}

func (c *shardedCore[T]) idle() bool {
	for i := range c.shards {
		if c.shards[i].busy.Load() {
			return false
		}
	}
	return true
}

// over reports whether a Get must not wait any more: ShutDown was called,
// or, with DrainOnShutdown, every shard is closed, so that a draining Get
// never reports shutdown while an accepted item is on its way.
func (c *shardedCore[T]) over() bool {
	if c.s.drain {
		return c.shut.Load()
	}
	return c.shutting.Load()
}

func (c *shardedCore[T]) get() (item T, prio int, shutdown bool) {
	for {
		over := c.over() // before the pop: what it misses arrived after the shards closed
		if over && !c.s.drain {
			return item, 0, true
		}
		if item, prio, ok := c.tryPop(); ok {
			return item, prio, false
		}
		if over {
			return item, 0, true
		}
		c.g.Park(func() bool { return c.anyEligible() || c.over() })
	}
}

func (c *shardedCore[T]) done(item T) {
	sh := c.shardFor(item)
	sh.mu.Lock()
	eligible := sh.e.done(item)
	sh.publish()
	sh.mu.Unlock()
	if eligible {
		c.g.Wake(1)
	}
	if c.shut.Load() && c.idle() {
		c.g.WakeDrainers() // drains may end
	}
}

func (c *shardedCore[T]) len() int {
	n := int64(0)
	for i := range c.shards {
		n += c.shards[i].ready.Load()
	}
	return int(n)
}

func (c *shardedCore[T]) shutDown(drain bool) {
	c.shutting.Store(true)
	c.g.WakeAll() // Gets stop at once unless they drain
	c.draining.Store(drain && c.s.drain)
	for i := range c.shards {
		sh := &c.shards[i].shardOf
		sh.mu.Lock()
		sh.close()
		sh.publish()
		sh.mu.Unlock()
	}
	c.shut.Store(true)
	c.g.WakeAll()
	c.g.WaitUntil(func() bool { return !c.draining.Load() || c.idle() })
	c.refresh.halt()
}

func (c *shardedCore[T]) shuttingDown() bool { return c.shutting.Load() }

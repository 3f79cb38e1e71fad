package workq

import (
	"hash/maphash"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/internal/cacheline"
	"github.com/queuelab/queuelab/internal/shard"
)

var _ workqueue.TypedInterface[string] = (*Sharded[string])(nil)

// Sharded is a work queue whose items are spread by hash over independent
// shards, each a lock plus the same per-item table as Mutex, so producers and
// consumers working on different items rarely meet on a lock.
//
// All state of an item lives in its shard, so per-item guarantees (dedup,
// re-queue of items added while processing, never two workers on one item)
// hold exactly as in Mutex. Order is FIFO within a shard only
// (guarantee.OrderPerShard): items of different shards may overtake each other.
//
// Blocking Get: each shard publishes in an atomic flag whether it has queued
// items, written only when that changes (a busy shard does not write it at
// all). Get scans the flags from a random shard (spreading concurrent
// consumers, never busy-waiting) and locks only a shard that has work. When
// every flag is clear it parks on a gate: it registers as parked, scans once
// more under the gate's lock, and waits; a producer sets its shard's flag
// before it looks for parked Gets, so one of the two always sees the other
// and no wakeup is lost. There is no queue-wide word written on every
// operation: the only shared word a busy queue touches is the gate's parked
// count, which it only reads.
//
// Shutdown is two-phase. ShutDown clears accepting, which Add reads under
// its shard lock, and then takes and releases every shard lock: an Add that
// saw accepting set has finished by then. Only after that barrier does it
// close the gate, whose flag Get trusts to mean "nothing more will arrive" —
// so a Get never reports shutdown while an accepted item is still on its way,
// and ShutDownWithDrain can wait until every shard is idle without missing a
// late item. Without Options.DrainQueued the drain waits, as client-go's,
// only until no shard has an item processing, which it checks with every
// shard locked at once: processing counts rise again as Gets take queued
// items, so shards read in turn could add up to an instant that never was.
type Sharded[T comparable] struct {
	shards      []shardQ[T]
	seed        maphash.Seed // hashes items for their shard and its table
	mask        uint32
	accepting   atomic.Bool
	drainQueued bool // Options.DrainQueued
	gate        shutGate
	metrics     *queueMetrics // nil without Options.MetricsProvider; also every shard's t.m
}

// shardCore is the part of a shard that is touched together; shardQ pads it
// to whole cache lines so neighbouring shards' locks do not false-share.
type shardCore[T comparable] struct {
	mu    sync.Mutex
	ready atomic.Bool // t.queued() > 0, readable without mu
	t     table[T]
}

type shardQ[T comparable] struct {
	shardCore[T]
	// The core's size does not depend on T (maps, slices and ints only), so
	// any instantiation gives the constant padding.
	_ [(cacheline.Size - unsafe.Sizeof(shardCore[struct{}]{})%cacheline.Size) % cacheline.Size]byte
}

// A shard's stride is whole padding units: indexing past the one element
// fails to compile if it is not (see internal/cacheline).
var _ = [1]struct{}{}[unsafe.Sizeof(shardQ[string]{})%cacheline.Size]

// NewSharded returns an empty Sharded queue. It takes Options.Shards and
// the metrics Options.
func NewSharded[T comparable](opts Options) (*Sharded[T], error) {
	m, err := opts.check("NewSharded", true, false)
	if err != nil {
		return nil, err
	}
	n, _ := shard.Validate(opts.Shards) // checked above
	q := &Sharded[T]{
		shards:      make([]shardQ[T], n),
		seed:        maphash.MakeSeed(),
		mask:        uint32(n - 1),
		drainQueued: opts.DrainQueued,
		metrics:     newQueueMetrics(m),
	}
	for i := range q.shards {
		q.shards[i].t.seed = q.seed
		q.shards[i].t.m = q.metrics
	}
	q.accepting.Store(true)
	q.gate.Init()
	if q.metrics != nil {
		q.metrics.run(q.refresh)
	}
	return q, nil
}

// Add marks item as needing processing (see Mutex.Add).
func (q *Sharded[T]) Add(item T) {
	h, s := q.locate(item)
	s.mu.Lock()
	// The flag is read under the shard lock: see the shutdown barrier.
	var enqueued bool
	if q.accepting.Load() {
		enqueued = s.t.add(item, h)
	}
	if enqueued && s.t.queued() == 1 {
		s.ready.Store(true)
	}
	s.mu.Unlock()
	if enqueued {
		q.gate.Wake(1)
	}
}

// locate returns item's hash and its shard: the shard from the hash's top
// bits, the shard's table probing from its low ones, so one hash serves
// both.
func (q *Sharded[T]) locate(item T) (uint64, *shardQ[T]) {
	h := hashOf(q.seed, item)
	return h, &q.shards[(h>>48)&uint64(q.mask)]
}

// Len returns the number of queued items. It holds every shard's lock at
// once, so the sum is the queue's length at one instant, as client-go's Len
// under its one lock is: summing shards locked in turn could count a state
// the queue was never in (an item added to a shard already read, one taken
// from a shard read later). It locks them in shard order and nothing else
// holds two shard locks, so it cannot deadlock.
func (q *Sharded[T]) Len() int { return q.sum((*table[T]).queued) }

// sum adds up count over the shards' tables with every shard locked at
// once, so the total is the queue's at one instant (see Len).
func (q *Sharded[T]) sum(count func(*table[T]) int) int {
	for i := range q.shards {
		q.shards[i].mu.Lock()
	}
	n := 0
	for i := range q.shards {
		// Shards after i are still locked: their counts are those of the
		// instant all were held.
		n += count(&q.shards[i].t)
		q.shards[i].mu.Unlock()
	}
	return n
}

// Get hands out a queued item from some shard, blocking while there is none;
// it reports shutdown once the queue is shut down and empty.
func (q *Sharded[T]) Get() (item T, shutdown bool) {
	start := rand.Uint32()
	for {
		// Read the flag before scanning: the gate closes after the shutdown
		// barrier, so a scan that starts after that sees every item that
		// will ever be queued except re-queues by Done, and "empty", once
		// confirmed below, is then final (as in client-go, a worker whose
		// Get reports shutdown while another still processes leaves the
		// re-queue to that one).
		down := q.gate.shutdown.Load()
		if item, ok := q.tryPop(start); ok {
			return item, false
		}
		if !down {
			q.gate.park(q.anyQueued)
			continue
		}
		// The scan read the shards one at a time while Dones re-queued
		// and other Gets took items, so "nothing found" may be no
		// instant's state: report shutdown only if no item is queued at
		// one instant (Len), else scan again.
		if q.Len() == 0 {
			return item, true
		}
	}
}

func (q *Sharded[T]) tryPop(start uint32) (item T, ok bool) {
	for i := range uint32(len(q.shards)) {
		s := &q.shards[(start+i)&q.mask]
		if !s.ready.Load() {
			continue
		}
		s.mu.Lock()
		item, ok = s.t.pop()
		if ok && s.t.queued() == 0 {
			s.ready.Store(false)
		}
		s.mu.Unlock()
		if ok {
			return item, true
		}
	}
	return item, false
}

func (q *Sharded[T]) anyQueued() bool {
	for i := range q.shards {
		if q.shards[i].ready.Load() {
			return true
		}
	}
	return false
}

// Done marks the processing of item finished (see Mutex.Done).
func (q *Sharded[T]) Done(item T) {
	h, s := q.locate(item)
	s.mu.Lock()
	requeued := s.t.done(item, h) // observes the work duration: see Mutex.Done
	if requeued && s.t.queued() == 1 {
		s.ready.Store(true)
	}
	idle := s.t.drained(q.drainQueued)
	s.mu.Unlock()
	if requeued {
		q.gate.Wake(1)
	}
	if idle {
		q.gate.notifyIdle()
	}
}

// ShutDown makes the queue ignore new items and ends any ShutDownWithDrain
// wait; Get hands out what is queued, then reports shutdown.
func (q *Sharded[T]) ShutDown() {
	q.accepting.Store(false)
	q.barrier()
	q.gate.close(false)
	q.metrics.halt()
}

// ShutDownWithDrain shuts the queue down, then waits until no shard has an
// item processing (with Options.DrainQueued: queued or processing), or
// until ShutDown is called (see Mutex).
func (q *Sharded[T]) ShutDownWithDrain() {
	q.accepting.Store(false)
	q.barrier()
	q.gate.close(true)
	q.metrics.halt()
	q.gate.waitDrained(q.idle)
}

// barrier waits out every Add that read accepting before it was cleared.
func (q *Sharded[T]) barrier() {
	for i := range q.shards {
		q.shards[i].mu.Lock()
		q.shards[i].mu.Unlock() //nolint:staticcheck // an empty critical section is the point
	}
}

// idle reports whether a drain may return. Without DrainQueued that is
// nothing processing at one instant (sum). With it, each shard is checked in
// turn: after the shutdown barrier no Add is accepted, so a shard's queued
// plus processing count only falls, and one found at zero stays there.
func (q *Sharded[T]) idle() bool {
	if !q.drainQueued {
		return q.sum(func(t *table[T]) int { return t.processing }) == 0
	}
	for i := range q.shards {
		s := &q.shards[i]
		s.mu.Lock()
		live := s.t.live()
		s.mu.Unlock()
		if live > 0 {
			return false
		}
	}
	return true
}

// refresh sets the unfinished-work gauges from the items being processed,
// unless the queue is shut down. It holds every shard's lock at once, as
// sum does, so the gauges describe one instant, as client-go's under its
// one lock do; the walk visits the processing items only.
func (q *Sharded[T]) refresh() {
	for i := range q.shards {
		q.shards[i].mu.Lock()
	}
	// accepting is cleared before the shutdown barrier, so a shutdown either
	// shows here or comes after this refresh.
	if q.accepting.Load() {
		q.metrics.setUnfinished(q.metrics.now(), func(yield func(time.Duration) bool) {
			for i := range q.shards {
				for t := range q.shards[i].t.started {
					if !yield(t) {
						return
					}
				}
			}
		})
	}
	for i := range q.shards {
		q.shards[i].mu.Unlock()
	}
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Sharded[T]) ShuttingDown() bool { return !q.accepting.Load() }

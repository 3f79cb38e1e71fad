package keyq

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"unsafe"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/cacheline"
	"github.com/queuelab/queuelab/internal/mpmc"
	"github.com/queuelab/queuelab/internal/shard"
)

// Config selects a Set's layout.
type Config struct {
	// Shards is the number of independently locked shards: 0 selects
	// shard.DefaultCount, others are rounded up to a power of two (see
	// shard.Validate). 1 gives a single-mutex queue.
	Shards int
	// Ring hands queued keys to Pop through one lock-free MPMC queue of
	// rings (global FIFO order) instead of one deque per shard (FIFO order
	// per shard).
	Ring bool
	// RingSize is the capacity of each of those rings; 0 selects
	// DefaultRingSize.
	RingSize int
}

// Set is the shared core of the FIFO and DeltaFIFO families: keys with
// accumulators of type A, queued in FIFO order (per shard, or globally in
// ring mode), with client-go's HasSynced and Close semantics.
type Set[A any] struct {
	shards []shardOf[A]
	pick   shard.Strings
	ring   *mpmc.Queue[entry] // one global lock-free FIFO of queued entries; nil: per-shard deques
	epoch  uint32             // bumped by Bulk.ResetQueue; written under every shard lock
	stamp  uint32             // last Bulk.NewStamp; written under every shard lock
	sync   synced
	wait   waiter
}

// shardOf is one shard, padded to whole cacheline units so that
// neighbouring shards' locks and tables never share a unit.
type shardOf[A any] struct {
	shardCore[A]
	// The core's size does not depend on A (maps, slices and ints only), so
	// any instantiation gives the constant padding.
	_ [(cacheline.Size - unsafe.Sizeof(shardCore[struct{}]{})%cacheline.Size) % cacheline.Size]byte
}

// A shard's stride is whole padding units whatever the accumulator: indexing
// past the one element fails to compile if the core's size ever comes to
// depend on A, or is a whole number of units (see internal/cacheline).
var _ = [1]struct{}{}[unsafe.Sizeof(shardOf[cache.Deltas]{})%cacheline.Size+
	unsafe.Sizeof(shardOf[any]{})%cacheline.Size]

// shardCore is the part of a shard that is touched together.
type shardCore[A any] struct {
	mu sync.Mutex
	// ready is len(t.queue) > 0, readable without mu, so Pop can skip empty
	// shards without locking them. It is written (under mu) only when that
	// changes, so a busy shard pays no atomic write per entry. A single
	// shard needs no such shortcut and keeps no flag (see counted).
	ready atomic.Bool
	t     table[A]
	// guess is the slot Bulk.LookupNext found last in this shard.
	guess int32
}

// New returns an empty Set, or an error naming the setting that is out of
// range.
func New[A any](c Config) (*Set[A], error) {
	n, err := shard.Validate(c.Shards)
	if err != nil {
		return nil, err
	}
	if c.RingSize < 0 {
		return nil, fmt.Errorf("ring size must not be negative, got %d", c.RingSize)
	}
	s := &Set[A]{
		shards: make([]shardOf[A], n),
		pick:   shard.NewStrings(n),
		sync:   newSynced(),
		wait:   newWaiter(),
	}
	if c.Ring {
		size := c.RingSize
		if size == 0 {
			size = DefaultRingSize
		}
		r, err := mpmc.NewQueue[entry](size)
		if err != nil {
			return nil, err
		}
		s.ring = r
	}
	return s, nil
}

func (s *Set[A]) shardIndex(ks string, kb []byte) int {
	if len(s.shards) == 1 {
		return 0
	}
	return s.pickShard(ks, kb)
}

// pickShard is shardIndex for more than one shard, out of line so that a
// single-shard Set's shardIndex inlines.
func (s *Set[A]) pickShard(ks string, kb []byte) int {
	if kb != nil {
		return s.pick.OfBytes(kb)
	}
	return s.pick.Of(ks)
}

// push queues one (non-initial) entry for slot i of shard sh. Needs sh's
// lock.
func (s *Set[A]) push(sh int, i int32) {
	x := &s.shards[sh]
	x.t.slots[i].entries++
	if s.ring != nil {
		s.ring.Push(entry{slot: i, shard: int32(sh), epoch: s.epoch})
		return
	}
	x.t.queue.PushBack(i)
	if s.counted() && x.t.queue.Len() == 1 {
		x.ready.Store(true)
	}
}

// popFront takes the oldest entry of x's queue (per-shard mode, x locked,
// its queue not empty).
func (s *Set[A]) popFront(x *shardOf[A]) int32 {
	i, _ := x.t.queue.PopFront()
	if s.counted() && x.t.queue.Len() == 0 {
		x.ready.Store(false)
	}
	return i
}

// counted reports whether shards keep their ready flag: in per-shard mode
// with more than one shard.
func (s *Set[A]) counted() bool { return len(s.shards) > 1 }

// Shards returns the number of shards (families keep per-shard scratch).
func (s *Set[A]) Shards() int { return len(s.shards) }

// MarkPopulated records a single-key write for HasSynced.
func (s *Set[A]) MarkPopulated() { s.sync.markPopulated() }

// HasSynced reports whether the initial population has been popped.
func (s *Set[A]) HasSynced() bool { return s.sync.done.Load() }

// Done returns a channel closed once HasSynced turns true.
func (s *Set[A]) Done() <-chan struct{} { return s.sync.ch }

// Close makes Pops return cache.ErrFIFOClosed once nothing is queued, and
// wakes the ones waiting.
func (s *Set[A]) Close() { s.wait.close() }

// IsClosed reports whether Close was called.
func (s *Set[A]) IsClosed() bool { return s.wait.closed.Load() }

// Write runs fn on the slot of key (ks, kb) under its shard lock, creating
// the slot if create is set (otherwise a missing key is left alone and fn is
// not called).
func (s *Set[A]) Write(ks string, kb []byte, create bool, fn func(shard int, sl *Slot[A]) Effect) {
	if s.write(ks, kb, create, false, fn) {
		s.wait.notify()
	}
}

// Produce is Write for a producer's write (Add, Update, Delete): it also
// marks the Set populated for HasSynced, under the same shard lock, as
// client-go sets populated under the lock it writes under — even for a
// Delete of an absent key. A write racing the first Replace is then
// entirely before it (and that Replace is not the initial population) or
// entirely after it.
func (s *Set[A]) Produce(ks string, kb []byte, create bool, fn func(shard int, sl *Slot[A]) Effect) {
	if s.write(ks, kb, create, true, fn) {
		s.wait.notify()
	}
}

// write is Write under the lock, marking the Set populated first if
// populate; it reports whether it queued an entry.
func (s *Set[A]) write(ks string, kb []byte, create, populate bool, fn func(shard int, sl *Slot[A]) Effect) (queued bool) {
	sh := s.shardIndex(ks, kb)
	x := &s.shards[sh]
	x.mu.Lock()
	defer x.mu.Unlock()
	if populate {
		s.sync.markPopulated()
	}
	i, ok := x.t.lookup(ks, kb, create)
	if !ok {
		return false
	}
	eff := fn(sh, &x.t.slots[i])
	if eff&Enqueue != 0 {
		s.push(sh, i)
	}
	x.t.settle(i, eff)
	return eff&Enqueue != 0
}

// Read runs fn on the slot of key (ks, kb), if it has one, under its shard
// lock.
func (s *Set[A]) Read(ks string, kb []byte, fn func(sl *Slot[A])) {
	x := &s.shards[s.shardIndex(ks, kb)]
	x.mu.Lock()
	defer x.mu.Unlock()
	if i, ok := x.t.find(ks, kb); ok {
		fn(&x.t.slots[i])
	}
}

// PopFunc handles one popped entry under its shard lock. initial is
// isInInitialList for it. done=false means the entry was stale (a FIFO key
// deleted after it was queued): Pop goes on to the next entry. The Effect
// may include Enqueue to put the key back (ErrRequeue).
type PopFunc[A any] func(sl *Slot[A], initial bool) (done bool, eff Effect)

// Pop blocks until an entry is queued, pops it and calls fn, repeating while
// fn reports stale entries. It returns cache.ErrFIFOClosed once the Set is
// closed and nothing is queued.
func (s *Set[A]) Pop(fn PopFunc[A]) error {
	syncDue := false // the HasSynced check waits until process has returned
	for {
		sh, e, ok := s.take()
		if !ok {
			if err := s.awaitEntry(&syncDue); err != nil {
				return err
			}
			continue
		}
		done, requeued := s.handle(sh, e, fn, &syncDue)
		if requeued || s.moreForWaiters() {
			s.wait.notify() // a requeue, or work for another waiting consumer
		}
		if done {
			return nil
		}
	}
}

// awaitEntry is Pop finding nothing queued: it parks until something may
// be, or returns cache.ErrFIFOClosed once the Set is closed and empty.
func (s *Set[A]) awaitEntry(syncDue *bool) error {
	if *syncDue {
		// client-go defers this check to Pop's return; do it before
		// waiting, so a queue whose remaining initial entries were all
		// deleted reports synced without needing another item.
		s.sync.check()
		*syncDue = false
	}
	if s.wait.closed.Load() && !s.available() {
		return cache.ErrFIFOClosed
	}
	s.wait.park(s.available)
	return nil
}

// handle runs fn on the entry take returned, with its shard lock held, and
// unlocks it; it reports whether fn consumed the entry and whether it put
// the key back.
func (s *Set[A]) handle(sh int, e entry, fn PopFunc[A], syncDue *bool) (done, requeued bool) {
	x := &s.shards[sh]
	defer x.mu.Unlock() // take returned with the lock held
	i := e.slot
	sl := &x.t.slots[i]
	initial := s.dequeued(sl)
	if initial {
		// client-go's DeltaFIFO decides "synced" before process runs, but
		// its HasSynced takes the lock Pop holds across process, so no
		// caller sees true until the last initial object is in the store;
		// its FIFO checks after process. Ours takes no lock, so for both
		// families it may turn true only once process has returned;
		// otherwise an informer's WaitForCacheSync could start workers on
		// an incomplete store.
		*syncDue = true
	}
	done, eff := fn(sl, initial)
	if eff&Enqueue != 0 {
		s.push(sh, i)
	}
	x.t.settle(i, eff)
	x.t.popped(1)
	if done && *syncDue {
		s.sync.check()
		*syncDue = false
	}
	return done, eff&Enqueue != 0
}

// take pops one queue entry and returns its shard, locked, and the entry.
func (s *Set[A]) take() (sh int, e entry, ok bool) {
	if s.ring != nil {
		for {
			e, ok := s.ring.TryPop()
			if !ok {
				return 0, entry{}, false
			}
			x := &s.shards[e.shard]
			x.mu.Lock()
			if e.epoch == s.epoch {
				return int(e.shard), e, true
			}
			x.mu.Unlock() // cancelled by a queue reset
		}
	}
	sh, ok = s.lockReady()
	if !ok {
		return 0, entry{}, false
	}
	i := s.popFront(&s.shards[sh])
	return sh, entry{slot: i, shard: int32(sh)}, true
}

// dequeued books one entry of sl leaving the queue (needs its shard lock)
// and reports whether it was an initial one, counting it against HasSynced.
func (s *Set[A]) dequeued(sl *Slot[A]) (initial bool) {
	sl.entries--
	sl.used = true
	if sl.initial == 0 {
		return false
	}
	sl.initial--
	s.sync.popped(1)
	return true
}

// lockReady finds a shard with queued entries (per-shard mode), starting
// at a random shard (no shared cursor to write on every Pop; every shard
// with entries has at least a 1/n chance each time, so none starves), and
// returns it locked.
func (s *Set[A]) lockReady() (sh int, ok bool) {
	n := len(s.shards)
	start := 0
	if n > 1 {
		start = int(rand.Uint32())
	}
	for j := range n {
		sh := (start + j) & (n - 1)
		x := &s.shards[sh]
		if s.counted() && !x.ready.Load() {
			continue
		}
		x.mu.Lock()
		if x.t.queue.Len() > 0 {
			return sh, true
		}
		x.mu.Unlock()
	}
	return 0, false
}

// available reports whether anything is queued. Where the shard is not
// counted it looks under the lock: a consumer announces itself as a waiter
// before looking, a producer looks for waiters after unlocking, so the
// mutex orders the two and no wake-up is lost.
func (s *Set[A]) available() bool {
	if s.ring != nil {
		return !s.ring.Empty()
	}
	if !s.counted() {
		x := &s.shards[0]
		x.mu.Lock()
		defer x.mu.Unlock()
		return x.t.queue.Len() > 0
	}
	for i := range s.shards {
		if s.shards[i].ready.Load() {
			return true
		}
	}
	return false
}

// moreForWaiters: another consumer is parked and there is work for it
// (several consumers are unusual; one pays a single atomic load here).
// Call it without holding a shard lock.
func (s *Set[A]) moreForWaiters() bool { return s.wait.waiters.Load() > 0 && s.available() }

// Batch is what PopBatch asks of its caller.
type Batch[A any] struct {
	// Max is the most entries one batch may hold.
	Max int
	// Fits reports whether a slot may join a batch that already has items
	// (the first entry is always popped).
	Fits func(sl *Slot[A]) bool
	// Take moves a popped slot's accumulator into the caller's batch.
	Take func(sl *Slot[A]) Effect
	// Process handles the n slots taken since the last call.
	Process func(n int, initial bool) error
}

// PopBatch blocks like Pop, then pops consecutive queued entries while they
// fit, up to b.Max, all of the initial population or all not (so
// isInInitialList is one value for the whole batch), and hands them to
// b.Process under the lock(s) of their shard(s). Entries are never stale
// here (DeltaFIFO has none).
//
// In per-shard mode a batch comes from one shard. In ring mode an entry is
// only known not to fit once it has been popped, so PopBatch then processes
// the batch so far and that entry on its own, in order, and returns both
// outcomes joined. Either way the result equals a sequence of Pops.
func (s *Set[A]) PopBatch(b Batch[A]) error {
	for {
		got, err := s.popBatchOnce(b)
		if got || err != nil {
			if s.moreForWaiters() {
				s.wait.notify() // work for another waiting consumer
			}
			return err
		}
		if s.wait.closed.Load() && !s.available() {
			return cache.ErrFIFOClosed
		}
		s.wait.park(s.available)
	}
}

func (s *Set[A]) popBatchOnce(b Batch[A]) (bool, error) {
	if s.ring != nil {
		return s.popBatchRing(b)
	}
	sh, ok := s.lockReady()
	if !ok {
		return false, nil
	}
	return true, s.popBatchShard(&s.shards[sh], b)
}

func (s *Set[A]) popBatchShard(x *shardOf[A], b Batch[A]) error {
	defer x.mu.Unlock()
	var initial bool // of the first entry; the batch stops where it changes
	n := 0
	for n < b.Max {
		i, ok := x.t.queue.Front()
		if !ok {
			break
		}
		sl := &x.t.slots[i]
		fits := b.Fits(sl)
		if n == 0 {
			initial = sl.initial > 0
		} else if !fits || (sl.initial > 0) != initial {
			break
		}
		s.popFront(x)
		s.dequeued(sl)
		x.t.settle(i, b.Take(sl))
		n++
		if !fits {
			break
		}
	}
	x.t.popped(n)
	// As in Pop: the last initial batch counts as synced only
	// once it has been written to the store.
	err := b.Process(n, initial)
	s.sync.check()
	return err
}

func (s *Set[A]) popBatchRing(b Batch[A]) (bool, error) {
	if s.ring.Empty() {
		return false, nil
	}
	s.lockAll()
	defer s.unlockAll()
	var errs []error
	n, initial := 0, false
	flush := func() {
		if n == 0 {
			return
		}
		if err := b.Process(n, initial); err != nil {
			errs = append(errs, err)
		}
		s.sync.check() // after Process, as in popBatchShard
		n = 0
	}
	popped := 0
	for popped < b.Max {
		e, ok := s.ring.TryPop()
		if !ok {
			break
		}
		if e.epoch != s.epoch {
			continue
		}
		x := &s.shards[e.shard]
		sl := &x.t.slots[e.slot]
		fits := b.Fits(sl)
		if n > 0 && (!fits || (sl.initial > 0) != initial) {
			flush() // the batch so far, then this entry starts the next
		}
		initial = s.dequeued(sl)
		x.t.settle(e.slot, b.Take(sl))
		x.t.popped(1)
		n++
		popped++
		if !fits {
			break
		}
	}
	flush()
	return popped > 0, errors.Join(errs...)
}

func (s *Set[A]) lockAll() {
	for i := range s.shards {
		s.shards[i].mu.Lock()
	}
}

func (s *Set[A]) unlockAll() {
	for i := range s.shards {
		s.shards[i].mu.Unlock()
	}
}

// Layout is how a FIFO or DeltaFIFO variant keeps its keys: the families'
// Mutex, Sharded and Ring.
type Layout int

const (
	// OneShard: one lock, FIFO order.
	OneShard Layout = iota
	// Shards: independently locked shards, FIFO order per shard.
	Shards
	// ShardsAndRing: sharded key state, queued keys in one lock-free ring.
	ShardsAndRing
)

// Config returns the Set configuration of the layout with the caller's
// shard count and ring size, or an error naming a setting the layout does
// not take: a shard count for one shard, a ring size without a ring.
func (l Layout) Config(shards, ringSize int) (Config, error) {
	switch {
	case l == OneShard && shards != 0:
		return Config{}, fmt.Errorf("Options.Shards is %d, but the Mutex variant has one lock (use Sharded or Ring)", shards)
	case l != ShardsAndRing && ringSize != 0:
		return Config{}, fmt.Errorf("Options.RingSize is %d, but only the Ring variant has a ring", ringSize)
	case l == OneShard:
		return Config{Shards: 1}, nil
	}
	return Config{Shards: shards, Ring: l == ShardsAndRing, RingSize: ringSize}, nil
}

package keyq

// Ref addresses a slot for the duration of a Bulk call. Unlike a *Slot it
// stays valid when later lookups create slots (which may grow the tables).
type Ref struct {
	shard int32
	slot  int32
}

// Bulk is a whole-Set view with every shard lock held: what Replace, Resync
// and listings use to act atomically with respect to Pop (whose process
// function runs under a shard lock) and to every single-key write.
type Bulk[A any] struct {
	s      *Set[A]
	queued bool
	// relist: ResetQueue dropped initial entries before HasSynced turned
	// true, so MarkInitial must count the new queue as the initial one.
	relist bool
}

// Bulk runs fn with every shard lock held (taken in index order, the only
// place more than one is held, so it cannot deadlock).
func (s *Set[A]) Bulk(fn func(b *Bulk[A]) error) error {
	b := Bulk[A]{s: s}
	err := func() error {
		s.lockAll()
		defer s.unlockAll()
		for i := range s.shards {
			s.shards[i].guess = -1
		}
		return fn(&b)
	}()
	if b.relist {
		s.sync.check() // ResetQueue without MarkInitial may have released the last initial entries
	}
	if b.queued {
		s.wait.notify()
	}
	return err
}

// Reserve prepares for about n new keys: a Set that holds no key yet sizes
// its indexes and slot tables at once instead of growing them step by step
// (the first relist of an informer is the largest allocation of its life).
func (b *Bulk[A]) Reserve(n int) {
	per := n/len(b.s.shards) + 1
	for i := range b.s.shards {
		t := &b.s.shards[i].t
		if len(t.index) == 0 {
			t.index = make(map[string]int32, per)
			if cap(t.slots) < per {
				t.slots = make([]Slot[A], 0, per)
				t.free = t.free[:0]
			}
		}
	}
}

// Lookup finds (or, with create, makes) the slot of key (ks, kb). ok is
// false only when the key has no slot and create is false.
func (b *Bulk[A]) Lookup(ks string, kb []byte, create bool) (r Ref, ok bool) {
	sh := b.s.shardIndex(ks, kb)
	i, ok := b.s.shards[sh].t.lookup(ks, kb, create)
	return Ref{shard: int32(sh), slot: i}, ok
}

// LookupNext is Lookup for keys that tend to come in the same order every
// time, as a relist does (the API server lists in key order): it first
// tries the slot after the one it found last in the key's shard — slots are
// created in first-seen order — and only falls back to the index when that
// guess is wrong. A hit costs one string comparison instead of a hash
// lookup into a table of, say, 100000 keys, whose memory accesses miss the
// cache.
func (b *Bulk[A]) LookupNext(ks string, kb []byte, create bool) (r Ref, ok bool) {
	sh := b.s.shardIndex(ks, kb)
	x := &b.s.shards[sh]
	if g := x.guess + 1; g > 0 && int(g) < len(x.t.slots) {
		if sl := &x.t.slots[g]; sl.live && keyIs(sl.Key, ks, kb) {
			sl.used = true
			x.guess = g
			return Ref{shard: int32(sh), slot: g}, true
		}
	}
	i, ok := x.t.lookup(ks, kb, create)
	if ok {
		x.guess = i
	}
	return Ref{shard: int32(sh), slot: i}, ok
}

// Slot returns the slot r addresses. The pointer is valid until the next
// Lookup that creates a slot.
func (b *Bulk[A]) Slot(r Ref) *Slot[A] { return &b.s.shards[r.shard].t.slots[r.slot] }

// Shard returns the shard r lives in (families keep per-shard scratch).
func (b *Bulk[A]) Shard(r Ref) int { return int(r.shard) }

// Enqueue adds one queue entry for r's slot.
func (b *Bulk[A]) Enqueue(r Ref) {
	b.s.push(int(r.shard), r.slot)
	b.queued = true
}

// Settle applies eff (Empty, Forget) to r's slot after the caller changed it.
func (b *Bulk[A]) Settle(r Ref, eff Effect) { b.s.shards[r.shard].t.settle(r.slot, eff) }

// Range calls fn for every slot in use (queued, holding something, or idle
// with its key interned), shard by shard, until fn returns false.
func (b *Bulk[A]) Range(fn func(r Ref, sl *Slot[A]) bool) {
	for sh := range b.s.shards {
		t := &b.s.shards[sh].t
		for i := range t.slots {
			if t.slots[i].live && !fn(Ref{shard: int32(sh), slot: int32(i)}, &t.slots[i]) {
				return
			}
		}
	}
}

// ResetQueue drops every queue entry (a FIFO's Replace rebuilds its queue
// from scratch). If initial entries are dropped before HasSynced turned
// true, a following MarkInitial makes the rebuilt queue the initial
// population instead: a relist right after the first list must not let
// WaitForCacheSync return with nothing processed. In
// ring mode, entries already taken by a Pop that waits for a shard lock are
// cancelled by the epoch they carry (their slots' counts are reset here).
func (b *Bulk[A]) ResetQueue() {
	s := b.s
	if s.ring != nil {
		for _, ok := s.ring.TryPop(); ok; _, ok = s.ring.TryPop() {
		}
		s.epoch++
	}
	dropped := 0
	for sh := range s.shards {
		x := &s.shards[sh]
		x.t.queue.Reset()
		x.ready.Store(false)
		for i := range x.t.slots {
			sl := &x.t.slots[i]
			dropped += int(sl.initial)
			sl.entries, sl.initial = 0, 0
		}
	}
	s.sync.popped(dropped)
	b.relist = dropped > 0
}

// MarkInitial makes every queued entry part of the initial population that
// HasSynced waits for, if this is the first Replace (no single-key write and
// no Replace came before) or ResetQueue dropped unpopped initial entries;
// otherwise it does nothing.
func (b *Bulk[A]) MarkInitial() {
	s := b.s
	if s.sync.populated.Load() && !b.relist {
		return
	}
	n := 0
	b.Range(func(_ Ref, sl *Slot[A]) bool {
		sl.initial = sl.entries
		n += int(sl.entries)
		return true
	})
	s.sync.initial(n, b.relist)
}

// NewStamp returns a value no slot's Stamp holds yet, for marking the slots
// one bulk operation touches.
func (b *Bulk[A]) NewStamp() uint32 {
	s := b.s
	s.stamp++
	if s.stamp == 0 { // wrapped: clear old marks so none can match again
		b.Range(func(_ Ref, sl *Slot[A]) bool { sl.Stamp = 0; return true })
		s.stamp = 1
	}
	return s.stamp
}

// Queued reports whether r's slot has a queue entry.
func (b *Bulk[A]) Queued(r Ref) bool { return b.Slot(r).entries > 0 }

package keyq

import (
	"github.com/queuelab/queuelab/internal/deque"
	"github.com/queuelab/queuelab/internal/freelist"
)

// Slot is one key's state. Families read and write Key, Acc and Stamp inside
// their callbacks; the rest is the Set's bookkeeping.
type Slot[A any] struct {
	// Key is the slot's key. It is interned: once a key has a slot, writes
	// and pops of that key reuse this string instead of building a new one.
	Key string
	// Acc is the family's accumulator: the latest object, or pending Deltas.
	Acc A
	// Stamp is free for a family's bulk operations (e.g. "listed by the
	// current Replace").
	Stamp uint32

	entries int32 // queue entries naming this slot
	// initial counts the first of those entries that belong to the initial
	// population (the first Replace). A slot's entries leave the queue in
	// the order they entered it and every later entry is queued after the
	// initial ones, so the next entry popped is initial iff initial > 0.
	// Counting here rather than flagging entries also covers an entry a
	// ring-mode Pop holds between taking it and locking its shard.
	initial int32
	live    bool // the slot is in the index (not on the free list)
	empty   bool // Acc holds nothing, per the last callback's Effect
	used    bool // touched since the last sweep
}

// idle: the slot holds nothing and is not queued; only its interned key is
// kept, for the next write of the same key.
func (s *Slot[A]) idle() bool { return s.live && s.empty && s.entries == 0 }

// Effect is what a callback tells the Set about the slot it was given.
type Effect uint8

const (
	// Enqueue: add one queue entry for the slot.
	Enqueue Effect = 1 << iota
	// Empty: the slot's accumulator holds nothing now.
	Empty
	// Forget: if the slot ends up empty and unqueued, drop it and its key
	// at once rather than keeping the key interned (deleted objects rarely
	// come back; results/notes.md measures the alternative).
	Forget
)

// sweepMin is the fewest pops between two sweeps of a shard's idle slots.
const sweepMin = 1024

// table is one shard's keys and slots. Every method needs the shard lock.
type table[A any] struct {
	index map[string]int32
	slots []Slot[A]
	free  []int32
	queue deque.Deque[int32] // slot indexes; per-shard mode only
	pops  int                // since the last sweep
	kept  int                // keys the last sweep left in index
}

func (t *table[A]) find(s string, b []byte) (int32, bool) {
	if b != nil {
		i, ok := t.index[string(b)] // no allocation: the compiler looks up the bytes in place
		return i, ok
	}
	i, ok := t.index[s]
	return i, ok
}

func (t *table[A]) create(key string) int32 {
	i := freelist.Alloc(&t.slots, &t.free)
	t.slots[i] = Slot[A]{Key: key, live: true, empty: true}
	if t.index == nil {
		t.index = make(map[string]int32)
	}
	t.index[key] = i
	return i
}

// lookup finds the key's slot, creating it if asked; ok is false only when
// the key has no slot and create is false.
func (t *table[A]) lookup(s string, b []byte, create bool) (int32, bool) {
	i, ok := t.find(s, b)
	if !ok {
		if !create {
			return 0, false
		}
		i = t.create(KeyString(s, b))
	}
	t.slots[i].used = true
	return i, true
}

// settle applies eff to slot i after a callback: an empty, unqueued slot is
// either kept idle (key interned) or, with Forget, returned to the free list.
func (t *table[A]) settle(i int32, eff Effect) {
	s := &t.slots[i]
	s.empty = eff&Empty != 0
	if eff&Forget != 0 && s.idle() {
		t.drop(i)
	}
}

func (t *table[A]) drop(i int32) {
	delete(t.index, t.slots[i].Key)
	t.slots[i] = Slot[A]{}
	t.free = append(t.free, i)
}

// popped counts a pop and, once a sweep period has passed, drops the idle
// slots nobody touched since the previous sweep. The interned keys of live
// objects survive (a relist or resync touches them); keys of objects that
// stopped changing, or are gone, are let go within two sweeps, so the table
// stays within a small factor of the keys in recent use.
//
// The period is max(sweepMin, keys the last sweep kept, len(slots)/2). It is
// fixed at the last sweep rather than read from the index as it grows: with
// a new key per pop the index would outgrow the period forever and no sweep
// would run. The len(slots)/2 term pays for the scan, which visits every
// slot, free ones included: at most two slots per pop.
func (t *table[A]) popped(n int) {
	t.pops += n
	if t.pops < max(sweepMin, t.kept, len(t.slots)/2) {
		return
	}
	t.pops = 0
	for i := range t.slots {
		s := &t.slots[i]
		switch {
		case !s.live:
		case s.idle() && !s.used:
			t.drop(int32(i))
		default:
			s.used = false
		}
	}
	t.kept = len(t.index)
}

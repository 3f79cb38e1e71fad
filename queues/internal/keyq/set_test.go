package keyq

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// newTestSet returns a Set of ints (an int accumulator: 0 is empty).
func newTestSet(t *testing.T, c Config) *Set[int] {
	t.Helper()
	s, err := New[int](c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// add queues key with value v if it holds nothing yet.
func add(s *Set[int], key string, v int) {
	s.Write(key, nil, true, func(_ int, sl *Slot[int]) Effect {
		eff := Effect(0)
		if sl.Acc == 0 {
			eff = Enqueue
		}
		sl.Acc = v
		return eff
	})
}

// popAll closes s and pops everything, returning the keys in pop order.
func popAll(t *testing.T, s *Set[int]) []string {
	t.Helper()
	s.Close()
	var keys []string
	for {
		err := s.Pop(func(sl *Slot[int], _ bool) (bool, Effect) {
			keys = append(keys, sl.Key)
			sl.Acc = 0
			return true, Empty
		})
		if errors.Is(err, cache.ErrFIFOClosed) {
			return keys
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

var layouts = map[string]Config{
	"mutex":   {Shards: 1},
	"sharded": {Shards: 8},
	"ring":    {Shards: 8, Ring: true, RingSize: 4}, // tiny: exercise linked rings
}

func TestNewRejectsBadShardCounts(t *testing.T) {
	for _, n := range []int{-1, 1 << 20} {
		if _, err := New[int](Config{Shards: n}); err == nil {
			t.Errorf("New with %d shards succeeded", n)
		}
	}
	if s, err := New[int](Config{Shards: 3}); err != nil || len(s.shards) != 4 {
		t.Errorf("New with 3 shards: %v; want 4 shards", err)
	}
	if _, err := New[int](Config{Shards: 1, Ring: true, RingSize: -1}); err == nil {
		t.Error("New with a negative ring size succeeded")
	}
}

// TestOrder: one shard and the ring keep global FIFO order (across linked
// rings too); shards keep it per shard.
func TestOrder(t *testing.T) {
	for name, c := range layouts {
		t.Run(name, func(t *testing.T) {
			s := newTestSet(t, c)
			var want []string
			for i := range 100 {
				k := fmt.Sprint("k", i)
				add(s, k, i+1)
				add(s, k, i+2) // already queued: no second entry
				want = append(want, k)
			}
			got := popAll(t, s)
			if name == "sharded" {
				perShard := func(keys []string) map[int][]string {
					m := make(map[int][]string)
					for _, k := range keys {
						sh := s.shardIndex(k, nil)
						m[sh] = append(m[sh], k)
					}
					return m
				}
				g, w := perShard(got), perShard(want)
				for sh := range w {
					if !slices.Equal(g[sh], w[sh]) {
						t.Errorf("shard %d: popped %v, queued %v", sh, g[sh], w[sh])
					}
				}
				return
			}
			if !slices.Equal(got, want) {
				t.Errorf("popped %v, want %v", got, want)
			}
		})
	}
}

// TestResetQueueCancelsTakenEntries: a ring entry a Pop has taken but not
// yet locked is recognised as stale after a reset.
func TestResetQueueCancelsTakenEntries(t *testing.T) {
	s := newTestSet(t, layouts["ring"])
	add(s, "a", 1)
	e, ok := s.ring.TryPop() // a Pop between taking the entry and locking its shard
	if !ok {
		t.Fatal("nothing queued")
	}
	_ = s.Bulk(func(b *Bulk[int]) error { b.ResetQueue(); return nil })
	if e.epoch == s.epoch {
		t.Fatal("the reset did not move the epoch on")
	}
	if got := popAll(t, s); len(got) != 0 {
		t.Fatalf("popped %v after the reset", got)
	}
}

// TestInitialEntries: MarkInitial flags exactly the queued entries, in every
// layout; HasSynced turns true when the last of them is popped or dropped.
func TestInitialEntries(t *testing.T) {
	for name, c := range layouts {
		t.Run(name, func(t *testing.T) {
			s := newTestSet(t, c)
			for i := range 10 {
				add(s, fmt.Sprint("i", i), 1)
			}
			_ = s.Bulk(func(b *Bulk[int]) error { b.MarkInitial(); return nil })
			_ = s.Bulk(func(b *Bulk[int]) error { b.MarkInitial(); return nil }) // second: no-op
			add(s, "later", 1)
			initial := 0
			s.Close()
			for !s.HasSynced() {
				err := s.Pop(func(sl *Slot[int], isInitial bool) (bool, Effect) {
					if isInitial {
						initial++
					} else if sl.Key != "later" {
						t.Errorf("%s: not initial", sl.Key)
					}
					sl.Acc = 0
					return true, Empty
				})
				if err != nil {
					t.Fatalf("HasSynced still false with the queue drained: %v", err)
				}
			}
			if initial != 10 {
				t.Errorf("%d initial entries popped, want 10", initial)
			}
			popAll(t, s)

			s = newTestSet(t, c)
			add(s, "x", 1)
			_ = s.Bulk(func(b *Bulk[int]) error { b.MarkInitial(); return nil })
			_ = s.Bulk(func(b *Bulk[int]) error { b.ResetQueue(); return nil })
			if !s.HasSynced() {
				t.Error("dropping the only initial entry did not sync")
			}
		})
	}
}

// TestSweepKeepsRecentKeysOnly: idle slots survive while touched, and are
// dropped within two sweeps once nobody uses them.
func TestSweepKeepsRecentKeysOnly(t *testing.T) {
	var tb table[int]
	for i := range 10 {
		i := tb.create(fmt.Sprint("k", i))
		tb.settle(i, Empty) // idle: key interned, nothing held
	}
	hot, _ := tb.lookup("k0", nil, false)
	for range 3 {
		tb.slots[hot].used = true
		tb.popped(sweepMin) // one sweep
	}
	if len(tb.index) != 1 {
		t.Fatalf("after three sweeps %d keys left, want only the one in use", len(tb.index))
	}
	if _, ok := tb.find("k0", nil); !ok {
		t.Fatal("the key in use was dropped")
	}
	if i := tb.create("new"); int(i) >= 10 {
		t.Errorf("new slot %d: freed slots not reused", i)
	}
}

// TestUniqueKeysStayBounded: keys written once, popped and never touched
// again (objects created and then left alone) are let go by the sweeps, so
// a stream of them keeps every shard within two sweep periods of keys. A
// period read from the growing index never ended, and kept them all.
func TestUniqueKeysStayBounded(t *testing.T) {
	for name, c := range layouts {
		t.Run(name, func(t *testing.T) {
			s := newTestSet(t, c)
			for i := range 50 * sweepMin {
				add(s, fmt.Sprint("k", i), 1)
				err := s.Pop(func(sl *Slot[int], _ bool) (bool, Effect) {
					sl.Acc = 0
					return true, Empty
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			for i := range s.shards {
				if n := len(s.shards[i].t.index); n > 2*sweepMin {
					t.Errorf("shard %d interns %d keys after 50 sweep periods of unique keys, want at most %d", i, n, 2*sweepMin)
				}
			}
		})
	}
}

func TestNewStampClearsMarksOnWrap(t *testing.T) {
	s := newTestSet(t, Config{Shards: 2})
	add(s, "a", 1)
	_ = s.Bulk(func(b *Bulk[int]) error {
		r, _ := b.Lookup("a", nil, false)
		b.s.stamp = math.MaxUint32 - 1
		b.Slot(r).Stamp = b.NewStamp() // MaxUint32
		if st := b.NewStamp(); st != 1 || b.Slot(r).Stamp != 0 {
			t.Errorf("after the wrap: stamp %d, old mark %d; want 1 and 0", st, b.Slot(r).Stamp)
		}
		return nil
	})
}

func TestLookupNextPredictsListOrder(t *testing.T) {
	s := newTestSet(t, Config{Shards: 1})
	for i := range 5 {
		add(s, fmt.Sprint("k", i), 1)
	}
	_ = s.Bulk(func(b *Bulk[int]) error {
		for i, k := range []string{"k0", "k1", "k3", "k4", "k2", "new"} {
			r, ok := b.LookupNext(k, nil, true)
			if !ok || b.Slot(r).Key != k {
				t.Errorf("lookup %d (%s) found %q", i, k, b.Slot(r).Key)
			}
		}
		return nil
	})
}

// TestInitialCountsEntriesInFlight: a ring entry a Pop has taken but not yet
// locked when the first Replace marks the initial population still counts
// as initial when that Pop gets to it, and a reset meanwhile releases it.
func TestInitialCountsEntriesInFlight(t *testing.T) {
	for _, reset := range []bool{false, true} {
		s := newTestSet(t, layouts["ring"])
		add(s, "a", 1)
		e, _ := s.ring.TryPop() // in flight
		_ = s.Bulk(func(b *Bulk[int]) error {
			b.MarkInitial()
			if reset {
				b.ResetQueue()
			}
			return nil
		})
		if s.HasSynced() != reset {
			t.Fatalf("reset=%v: HasSynced = %v before the in-flight entry is handled", reset, s.HasSynced())
		}
		x := &s.shards[e.shard]
		x.mu.Lock()
		if e.epoch == s.epoch { // what take does next
			if !s.dequeued(&x.t.slots[e.slot]) {
				t.Error("the in-flight entry was not initial")
			}
		}
		x.mu.Unlock()
		s.sync.check()
		if !s.HasSynced() {
			t.Errorf("reset=%v: not synced once the only initial entry is gone", reset)
		}
	}
}

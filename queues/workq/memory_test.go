package workq

import (
	"hash/maphash"
	"strconv"
	"testing"
)

// basicQueue is the part of a work queue the memory tests drive.
type basicQueue interface {
	Add(string)
	Get() (string, bool)
	Done(string)
}

// cycle adds, gets and finishes n distinct items one at a time.
func cycle(q basicQueue, n int) {
	for i := range n {
		q.Add("item-" + strconv.Itoa(i))
		item, _ := q.Get()
		q.Done(item)
	}
}

// Done forgets the item: a stream of distinct items leaves no record and
// reuses one slot.
func TestTableForgetsDoneItems(t *testing.T) {
	q := must(NewMutex[string](Options{}))
	cycle(q, 1000)
	if n := q.t.index.len(); n != 0 {
		t.Fatalf("%d records indexed with nothing live", n)
	}
	if len(q.t.slab) != 1 || len(q.t.free) != 1 || q.t.slab[0] != (record[string]{}) {
		t.Fatalf("slab %v, free %v: want one cleared slot, reused", q.t.slab, q.t.free)
	}
	for i, c := range q.t.index.cells {
		if c != (cell[string, int32]{}) {
			t.Fatalf("index cell %d still holds %+v", i, c)
		}
	}
}

// A burst far beyond the working size is released once the table empties,
// with the metrics' per-item times.
func TestTableReleasesBurst(t *testing.T) {
	for name, o := range map[string]Options{"plain": {}, "metrics": {MetricsProvider: discard{}, Name: "q"}} {
		q := must(NewMutex[string](o))
		burstLap(q, distinctKeys(4*shrinkAbove))
		if q.t.slab != nil || q.t.index.cells != nil || q.t.free != nil || q.t.stamps != nil || q.t.busy != nil {
			t.Fatalf("%s: after the burst: slab %d, index %d, free %d, stamps %d, busy %d kept",
				name, len(q.t.slab), q.t.index.len(), len(q.t.free), len(q.t.stamps), len(q.t.busy))
		}
		cycle(q, 10) // still usable
		q.ShutDown()
	}
}

// The Ring forgets Done items and reuses their cleared entries; a burst is
// released once its stripes empty.
func TestRingForgetsDoneItems(t *testing.T) {
	q := must(NewRing[string](Options{}))
	defer q.ShutDown()
	cycle(q, 1000)
	for i := range q.stripes {
		s := &q.stripes[i]
		if s.entries.len() != 0 {
			t.Fatalf("stripe %d: %d entries with nothing live", i, s.entries.len())
		}
		for _, e := range s.free {
			if e.item != "" {
				t.Fatalf("stripe %d: free entry still holds %q", i, e.item)
			}
		}
	}
	burstLap(q, distinctKeys(4*shrinkAbove*len(q.stripes)))
	for i := range q.stripes {
		if s := &q.stripes[i]; s.entries.cells != nil || s.free != nil {
			t.Fatalf("after the burst, stripe %d keeps %d entries, %d free", i, s.entries.len(), len(s.free))
		}
	}
}

// burstLap adds every key, then gets and finishes them all: a controller
// whose relist queues every object at once.
func burstLap(q basicQueue, keys []string) {
	for _, k := range keys {
		q.Add(k)
	}
	for range keys {
		item, _ := q.Get()
		q.Done(item)
	}
}

func distinctKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "key-" + strconv.Itoa(i)
	}
	return keys
}

// Done finds its record through the last handed-out slot only if that slot
// holds the item: a vacant slot's zero item may be a real item elsewhere.
func TestTableDoneHintSkipsVacantSlot(t *testing.T) {
	tb := table[string]{seed: maphash.MakeSeed()}
	tb.add("", hashOf(tb.seed, ""))
	tb.add("x", hashOf(tb.seed, "x"))
	tb.pop()        // "": slot 0
	tb.pop()        // "x": slot 1, the last handed out
	tb.done("x", 0) // slot 1 is now vacant and holds ""
	if tb.slab[1].state != vacant {
		t.Fatalf("slot 1 in state %d, want vacant", tb.slab[1].state)
	}
	tb.done("", 0)
	if tb.slab[0].state != vacant || tb.live() != 0 || tb.index.len() != 0 {
		t.Fatalf(`Done("") missed its record: state %d, %d live`, tb.slab[0].state, tb.live())
	}
}

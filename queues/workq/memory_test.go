package workq

import (
	"strconv"
	"testing"

	"github.com/queuelab/queuelab/queues/registry"
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

// Idle records are a bounded cache: a stream of distinct items leaves at
// most twice the retention budget behind.
func TestTableRetainsBoundedIdle(t *testing.T) {
	q := registry.Must(NewMutex[string]())
	cycle(q, 10*idleRetention)
	if n := len(q.t.index); n > 2*idleRetention {
		t.Fatalf("%d records retained, want at most %d", n, 2*idleRetention)
	}
	nIdle := 0
	for i, r := range q.t.slab {
		switch {
		case r.state == idle:
			nIdle++
			if j, ok := q.t.index[r.item]; !ok || j != int32(i) {
				t.Fatalf("idle record %d (%q) not indexed at its slot", i, r.item)
			}
		case r.state != vacant:
			t.Fatalf("record %d in state %d with nothing live", i, r.state)
		}
	}
	if q.t.live() != 0 || nIdle != len(q.t.index) || nIdle+len(q.t.free) != len(q.t.slab) {
		t.Fatalf("live %d, idle %d, indexed %d, free %d, slab %d: bookkeeping out of step",
			q.t.live(), nIdle, len(q.t.index), len(q.t.free), len(q.t.slab))
	}
}

// A burst far beyond the working size is released once the table empties.
func TestTableReleasesBurst(t *testing.T) {
	q := registry.Must(NewMutex[string]())
	const burst = 4 * shrinkAbove
	for i := range burst {
		q.Add("item-" + strconv.Itoa(i))
	}
	for range burst {
		item, _ := q.Get()
		q.Done(item)
	}
	if q.t.slab != nil || q.t.index != nil {
		t.Fatalf("after the burst: slab %d, index %d entries kept", len(q.t.slab), len(q.t.index))
	}
	cycle(q, 10) // still usable
}

// The Ring's state map is swept: a stream of distinct items keeps it within
// twice the retention budget.
func TestRingSweepsIdleEntries(t *testing.T) {
	q, err := NewRing[string]()
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	cycle(q, 10*idleRetention)
	if n := q.entries.Load(); n > 2*idleRetention {
		t.Fatalf("%d entries in the map, want at most %d", n, 2*idleRetention)
	}
	n := 0
	q.states.Range(func(string, *ringEntry[string]) bool { n++; return true })
	if int64(n) != q.entries.Load() {
		t.Fatalf("map holds %d entries, counter says %d", n, q.entries.Load())
	}
}

// burstLaps adds every key, then gets and finishes them all, lap after lap:
// a controller whose relists queue every object at once.
func burstLaps(q basicQueue, keys []string, laps int) {
	for range laps {
		for _, k := range keys {
			q.Add(k)
		}
		for range keys {
			item, _ := q.Get()
			q.Done(item)
		}
	}
}

// trickleLaps adds, gets and finishes each key in turn, lap after lap: few
// items live at a time, while every key comes back a lap later.
func trickleLaps(q basicQueue, keys []string, laps int) {
	for range laps {
		for _, k := range keys {
			q.Add(k)
			item, _ := q.Get()
			q.Done(item)
		}
	}
}

func distinctKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "key-" + strconv.Itoa(i)
	}
	return keys
}

// keepsKeysInUse: a controller's keys, far more than the retention
// budget, stay cached while they keep coming back: one at a time or all
// together, no record is evicted and re-inserted, because the sweep period
// grows with the keys the last sweep kept. record reports the identity of a key's record (its slot, its
// entry). An anchor item stays in processing, so the queue is never empty
// (an empty table beyond shrinkAbove releases its storage).
func keepsKeysInUse[R comparable](t *testing.T, q basicQueue, record func(key string) (R, bool)) {
	t.Helper()
	q.Add("anchor")
	if item, _ := q.Get(); item != "anchor" {
		t.Fatalf("got %q, want the anchor", item)
	}
	keys := distinctKeys(3 * idleRetention)
	burstLaps(q, keys, 1)
	first := make(map[string]R, len(keys))
	for _, k := range keys {
		r, ok := record(k)
		if !ok {
			t.Fatalf("%s: no record after its first lap", k)
		}
		first[k] = r
	}
	// After every lap, distinct items stream through while the keys wait
	// idle: a sweep runs (without inserts none would), and the keys,
	// processed since the sweep before, get their second chance. So each
	// pattern of use, one at a time or all together, meets a sweep.
	cycle(q, 4*idleRetention)
	for range 3 {
		trickleLaps(q, keys, 1)
		cycle(q, 4*idleRetention)
	}
	for range 2 {
		burstLaps(q, keys, 1)
		cycle(q, 4*idleRetention)
	}
	for _, k := range keys {
		if r, ok := record(k); !ok || r != first[k] {
			t.Fatalf("%s: record evicted and re-inserted (%v, was %v)", k, r, first[k])
		}
	}
}

func TestTableKeepsKeysInUse(t *testing.T) {
	q := registry.Must(NewMutex[string]())
	keepsKeysInUse(t, q, func(k string) (int32, bool) {
		i, ok := q.t.index[k]
		return i, ok
	})
}

// The Ring keeps the keys in use as Mutex does.
func TestRingKeepsKeysInUse(t *testing.T) {
	q, err := NewRing[string]()
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	keepsKeysInUse(t, q, q.states.Load)
}

// Done finds its record through the last handed-out slot only if that slot
// holds the item: a vacant slot's zero item may be a real item elsewhere.
func TestTableDoneHintSkipsVacantSlot(t *testing.T) {
	var tb table[string]
	tb.add("")
	tb.add("x")
	tb.pop() // "": slot 0
	tb.pop() // "x": slot 1, the last handed out
	tb.done("x")
	tb.sweep() // "x" was processed: second chance
	tb.sweep() // now evicted; slot 1 is vacant and holds ""
	if tb.slab[1].state != vacant {
		t.Fatalf("slot 1 in state %d, want vacant", tb.slab[1].state)
	}
	tb.done("")
	if r := tb.slab[0]; r.item != "" || r.state != idle || tb.live() != 0 {
		t.Fatalf(`Done("") missed its record: state %d, %d live`, r.state, tb.live())
	}
}

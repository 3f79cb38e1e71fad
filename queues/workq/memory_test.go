package workq

import (
	"strconv"
	"testing"
)

// cycle adds, gets and finishes n distinct items one at a time.
func cycle(q interface {
	Add(string)
	Get() (string, bool)
	Done(string)
}, n int) {
	for i := range n {
		q.Add("item-" + strconv.Itoa(i))
		item, _ := q.Get()
		q.Done(item)
	}
}

// Idle records are a bounded cache: a stream of distinct items leaves at
// most the retention budget behind.
func TestTableRetainsBoundedIdle(t *testing.T) {
	q := must(NewMutex[string]())
	cycle(q, 10*idleRetention)
	if n := len(q.t.index); n > idleRetention {
		t.Fatalf("%d records retained, want at most %d", n, idleRetention)
	}
	if q.t.live() != 0 || q.t.idle != len(q.t.index) {
		t.Fatalf("live %d, idle %d, indexed %d: bookkeeping out of step", q.t.live(), q.t.idle, len(q.t.index))
	}
}

// A burst far beyond the working size is released once the table empties.
func TestTableReleasesBurst(t *testing.T) {
	q := must(NewMutex[string]())
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
// twice the live items plus the retention budget.
func TestRingSweepsIdleEntries(t *testing.T) {
	q, err := NewRing[string]()
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	cycle(q, 10*idleRetention)
	if n := q.entries.Load(); n > idleRetention+2 {
		t.Fatalf("%d entries in the map, want at most %d", n, idleRetention+2)
	}
	n := 0
	q.states.Range(func(string, *ringEntry[string]) bool { n++; return true })
	if int64(n) != q.entries.Load() {
		t.Fatalf("map holds %d entries, counter says %d", n, q.entries.Load())
	}
}

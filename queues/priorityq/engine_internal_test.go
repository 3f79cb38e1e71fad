package priorityq

import (
	"fmt"
	"testing"
)

// TestMutexShrinksAfterABurst: once a burst of 50,000 items (an initial
// list) has been processed, a Mutex queue holds no slab, free list or index
// of that size any more, and the metrics refresher's walk covers the items
// being processed only.
func TestMutexShrinksAfterABurst(t *testing.T) {
	q, err := NewMutex(Options[string]{Name: "shrink"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	const n = 50_000
	for i := range n {
		q.Add(fmt.Sprint("item-", i))
	}
	held := make([]string, 0, 3)
	for i := range n {
		item, _ := q.Get()
		if i < cap(held) {
			held = append(held, item)
			continue
		}
		q.Done(item)
	}
	walked := 0
	q.c.mu.Lock()
	for i := q.c.e.started.head; i != none; i = q.c.e.recs[i].lk[startedList].next {
		walked++
	}
	q.c.mu.Unlock()
	if walked != len(held) {
		t.Errorf("the unfinished-work walk covers %d records, want the %d being processed", walked, len(held))
	}
	for _, item := range held {
		q.Done(item)
	}
	q.c.mu.Lock()
	defer q.c.mu.Unlock()
	if e := &q.c.e; len(e.recs) != 0 || cap(e.free) != 0 || len(e.index) != 0 {
		t.Errorf("after the burst: slab %d, free list cap %d, index %d; want all dropped", len(e.recs), cap(e.free), len(e.index))
	}
}

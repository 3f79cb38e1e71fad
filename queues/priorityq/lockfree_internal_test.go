package priorityq

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/utils/ptr"
)

// TestLockFreeRetiresLevels: a LockFree queue that used and drained 10,000
// distinct priorities holds no level for them, so neither Get's scan nor
// the memory held grows with the priorities ever used (each level is a
// ring). The levels held stay bounded all along: one priority at a time,
// then a backlog of many drained highest first.
func TestLockFreeRetiresLevels(t *testing.T) {
	q, err := NewLockFree(Options[string]{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	levels := func() int { return len(*q.c.levels.Load()) }
	const bound = 2*lfIdleLevels + 2
	get := func(want string, p int) {
		t.Helper()
		item, prio, _ := q.GetWithPriority()
		if item != want || prio != p {
			t.Fatalf("Get = %s@%d, want %s@%d", item, prio, want, p)
		}
		q.Done(item)
	}
	const n = 10_000
	for p := range n {
		item := fmt.Sprint("item-", p)
		q.AddWithOpts(AddOpts{Priority: ptr.To(p)}, item)
		get(item, p)
		if l := levels(); l > bound {
			t.Fatalf("after %d priorities used one at a time the queue holds %d levels, want at most %d", p+1, l, bound)
		}
	}
	const backlog = 1_000
	for p := range backlog {
		q.AddWithOpts(AddOpts{Priority: ptr.To(-p)}, fmt.Sprint("item-", -p))
	}
	for p := range backlog {
		get(fmt.Sprint("item-", -p), -p)
		if held := levels() - (backlog - 1 - p); held > bound {
			t.Fatalf("while draining a backlog the queue holds %d empty levels, want at most %d", held, bound)
		}
	}
	// Two Gets that find nothing: the first sweep marks the last levels
	// idle, the second retires them.
	for range 2 {
		if _, _, ok := q.c.pop(); ok {
			t.Fatal("pop of an empty queue succeeded")
		}
	}
	if l := levels(); l != 0 {
		t.Errorf("after draining %d priorities the queue holds %d levels, want 0", n+backlog, l)
	}
	// A retired priority works again.
	q.AddWithOpts(AddOpts{Priority: ptr.To(n - 1)}, "again")
	get("again", n-1)
}

// TestLockFreePlainAddTakesNoDelayLock: while items wait on a delay, an
// Add without delay of another item does not take the delay line's lock
// (it did on every Add as soon as one item waited; controllers nearly
// always have one).
func TestLockFreePlainAddTakesNoDelayLock(t *testing.T) {
	q, err := NewLockFree(Options[string]{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	q.AddAfter("parked", time.Hour)
	q.c.delay.mu.Lock()
	added := make(chan struct{})
	go func() {
		q.Add("a")
		close(added)
	}()
	select {
	case <-added:
	case <-time.After(10 * time.Second): // a watchdog, not a measurement
		t.Error("Add of an item that does not wait blocked on the delay line's lock")
	}
	q.c.delay.mu.Unlock()
	<-added
	q.Add("parked") // a waiting item: readied, and gone from the delay line
	if n := q.Len(); n != 2 {
		t.Fatalf("Len = %d, want 2", n)
	}
	if q.c.delayed.Load() != 0 {
		t.Fatal("the readied item still waits")
	}
}

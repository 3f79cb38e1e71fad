package priorityq

import (
	"fmt"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/utils/ptr"

	"github.com/queuelab/queuelab/queues/priorityq/internal/crseries"
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

// TestLockFreeAddAfterPopIsNotLost: a Get hands an item out when it pops
// the item's entry; until it marks the item processing, the record still
// says queued. An Add in that window used to find the item queued and do
// nothing (or raise it, hiding it from the Get), so the item the Get then
// handed out was not queued again: the linearizability checker's history
// (issue 28) had a Get pop x@2 and stall, a second Get take y@1 (x being
// gone from the rings), Add(x, 2) return, and x not come out again after
// Done. The Get is paused here between its pop and its mark, at both
// points: before it flags the state popped (only the ring position tells)
// and after.
func TestLockFreeAddAfterPopIsNotLost(t *testing.T) {
	for _, tc := range []struct {
		name          string
		flagged       bool // the Get set popped before the Add looked
		addPrio, want int  // the Add's priority, and x's after Done
	}{
		{"same priority", true, 0, 0},
		{"same priority, pop not yet flagged", false, 0, 0},
		{"raise", true, 2, 2},
		{"raise, pop not yet flagged", false, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := NewLockFree(Options[string]{})
			if err != nil {
				t.Fatal(err)
			}
			defer q.ShutDown()
			q.AddWithOpts(AddOpts{Priority: ptr.To(0)}, "x")
			l := (*q.c.levels.Load())[0]
			var e lfEntry[string]
			var ok bool
			if tc.flagged {
				e, ok = q.c.popEntry(l)
			} else {
				e, ok = l.q.TryPop() // the ring pop alone: the Get stalls right after it
			}
			if !ok {
				t.Fatal("no entry to pop")
			}
			q.AddWithOpts(AddOpts{Priority: ptr.To(tc.addPrio)}, "x")
			if !tc.flagged {
				e.st.popped.Store(true)
				l.n.Add(-1)
			}
			prio, ok := q.c.claim(e)
			if !ok || prio != 0 {
				t.Fatalf("the popping Get's claim = %d, %v; want 0, true (its pop handed x out)", prio, ok)
			}
			q.Done("x")
			if n := q.Len(); n != 1 {
				t.Fatalf("Len after Done = %d, want 1: the Add after the pop was lost", n)
			}
			item, prio, _ := q.GetWithPriority()
			if item != "x" || prio != tc.want {
				t.Fatalf("Get = %s@%d, want x@%d", item, prio, tc.want)
			}
			q.Done(item)
		})
	}
}

// TestLockFreeRaiseInstalledByGetThenDone: a Get that pops a raise's entry
// before its adder installs it installs it itself and hands the item out;
// should the item's Done drop the record before the adder looks again, the
// adder used to find no record and insert the item anew, so it came out a
// second time (linearizability checker, issue 28: x added at 1, raised to
// 2, handed out at 2 twice with one Done between).
func TestLockFreeRaiseInstalledByGetThenDone(t *testing.T) {
	q, err := NewLockFree(Options[string]{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: ptr.To(0)}, "x")
	lfRaisePushed = func() {
		lfRaisePushed = nil
		item, prio, _ := q.GetWithPriority()
		if item != "x" || prio != 2 {
			t.Errorf("Get between the raise's push and its install = %s@%d, want x@2", item, prio)
		}
		q.Done(item)
	}
	defer func() { lfRaisePushed = nil }()
	q.AddWithOpts(AddOpts{Priority: ptr.To(2)}, "x")
	if n := q.Len(); n != 0 {
		t.Fatalf("Len after the raise returned = %d, want 0: the item handed out and Done was queued again", n)
	}
}

// TestLockFreeGetSeesPushAboveLevelPassed: a Get that passed an empty
// level and then finds an item lower down must not take it when, in
// between, an add at the passed level returned and then the lower item's
// add began: the first add's priority comes first (linearizability
// checker, issue 28: a Get parked across Add(2, priority 2) and then
// Add(1, priority 0) returned 1@0 while 2@2 was queued).
func TestLockFreeGetSeesPushAboveLevelPassed(t *testing.T) {
	q, err := NewLockFree(Options[string]{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	for p, item := range []string{"z", "l", "h"} { // levels 0, 1 and 2, the upper two emptied
		q.AddWithOpts(AddOpts{Priority: ptr.To(p)}, item)
	}
	for _, want := range []string{"h", "l"} {
		if item, _ := q.Get(); item != want {
			t.Fatalf("Get = %s, want %s", item, want)
		}
		q.Done(want)
	}
	lfScanPassed = func() { // the Get has passed level 2
		lfScanPassed = nil
		q.AddWithOpts(AddOpts{Priority: ptr.To(2)}, "a")
		q.AddWithOpts(AddOpts{Priority: ptr.To(1)}, "b")
	}
	defer func() { lfScanPassed = nil }()
	if item, prio, _ := q.GetWithPriority(); item != "a" || prio != 2 {
		t.Fatalf("Get = %s@%d, want a@2: added at 2 before b was added at 1", item, prio)
	}
}

// TestLockFreeAddAfterPopRecordsLatency: an item added again between a
// Get's pop and its claim is handed out twice, and each hand-out records
// one queue-latency observation, as in controller-runtime's queue. The
// second used to record none: the add's clock start found the first add's
// clock still running.
func TestLockFreeAddAfterPopRecordsLatency(t *testing.T) {
	const name = "lockfree-add-after-pop-latency"
	q, err := NewLockFree(Options[string]{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	q.Add("x")
	e, ok := q.c.popEntry((*q.c.levels.Load())[0])
	if !ok {
		t.Fatal("no entry to pop")
	}
	q.Add("x") // between the pop and the claim
	if _, ok := q.c.claim(e); !ok {
		t.Fatal("the popping Get's claim failed")
	}
	q.Done("x")
	item, _ := q.Get()
	q.Done(item)
	var observations uint64
	crseries.Each(t, name, func(f *dto.MetricFamily, m *dto.Metric, _ []*dto.LabelPair) {
		if f.GetName() == "workqueue_queue_duration_seconds" {
			observations += m.GetHistogram().GetSampleCount()
		}
	})
	if observations != 2 {
		t.Fatalf("queue-latency observations = %d, want 2 (one per hand-out)", observations)
	}
}

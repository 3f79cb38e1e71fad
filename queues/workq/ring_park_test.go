package workq

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// getResult is what a Get returned.
type getResult struct {
	item     string
	shutdown bool
}

// getWhileReserved starts a Get on a ring whose counts show one item queued
// that is not in the ring yet (an Add between its reservation and its
// push), and waits until that Get has parked: it must not keep spinning for
// as long as the Add is descheduled.
func getWhileReserved(t *testing.T) (*Ring[string], <-chan getResult) {
	t.Helper()
	q := must(NewRing[string](Options{}))
	if !q.reserve() {
		t.Fatal("reserve failed on a fresh queue")
	}
	got := make(chan getResult, 1)
	go func() {
		item, shut := q.Get()
		got <- getResult{item, shut}
	}()
	waitParked(t)
	return q, got
}

// waitParked waits until a goroutine sits in Ring.park's condition wait.
// The bound is only there to fail instead of hanging when Get spins.
func waitParked(t *testing.T) {
	t.Helper()
	waitStack(t, "sync.(*Cond).Wait", ").park(")
}

// waitStack waits until some goroutine's stack holds both frames: it is
// blocked there. The bound is only there to fail instead of hanging.
func waitStack(t *testing.T, blockedAt, caller string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if blockedIn(blockedAt, caller) {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("no goroutine blocked in %s under %s", blockedAt, caller)
}

// blockedIn reports whether some goroutine's stack holds both frames now.
func blockedIn(blockedAt, caller string) bool {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	for _, g := range strings.Split(string(buf[:n]), "\n\n") {
		if strings.Contains(g, blockedAt) && strings.Contains(g, caller) {
			return true
		}
	}
	return false
}

// A Get that parked behind a reservation is woken by the push that follows.
func TestRingGetParksBehindReservation(t *testing.T) {
	q, got := getWhileReserved(t)
	defer q.ShutDown()
	h, s := q.locate("a")
	s.mu.Lock()
	c, _ := s.entries.slot(h, "a")
	q.enqueue(s.insert(c, h, "a"))
	s.mu.Unlock()
	q.gate.Wake(1)
	if r := <-got; r != (getResult{"a", false}) {
		t.Fatalf("Get = %+v, want a, false", r)
	}
}

// A Get that parked behind a reservation which a shutdown makes the Add
// take back reports shutdown.
func TestRingGetParkedReportsShutdown(t *testing.T) {
	q, got := getWhileReserved(t)
	q.ShutDown()
	q.unreserve()
	if r := <-got; !r.shutdown {
		t.Fatalf("Get = %+v, want shutdown", r)
	}
}

// An Add that reserved its item before a ShutDown was accepted, so once
// ShutDown has returned its item is queued (client-go: the Add took the lock
// first). Len must count it while the Add is still between its reservation
// and its push, or a Len made after ShutDown returned misses an item that a
// later Get hands out.
func TestRingLenAfterShutDownCountsReservedAdd(t *testing.T) {
	q := must(NewRing[string](Options{}))
	h, s := q.locate("a")
	s.mu.Lock() // an Add of a, as far as its reservation
	if !q.reserve() {
		t.Fatal("reserve failed on a fresh queue")
	}
	q.ShutDown()
	got := make(chan int, 1)
	go func() { got <- q.Len() }()
	for !blockedIn("sync.(*Mutex).Lock", ").Len(") {
		select {
		case n := <-got:
			s.mu.Unlock()
			t.Fatalf("Len after ShutDown = %d while an accepted Add had not pushed its item; want it to wait for the push and count it", n)
		case <-time.After(time.Millisecond):
		}
	}
	c, _ := s.entries.slot(h, "a")
	q.enqueue(s.insert(c, h, "a"))
	s.mu.Unlock()
	q.gate.Wake(1)
	if n := <-got; n != 1 {
		t.Fatalf("Len = %d, want 1", n)
	}
	wantGet(t, q, "a")
	q.Done("a")
}

// A Done that re-queues its item after a ShutDown queues it behind an
// item whose Add reserved before the shutdown and has not yet pushed it:
// that Add was accepted, so it counts as made before the shutdown (as
// client-go's Add that took the lock first), ahead of the re-queue.
func TestRingRequeueAfterShutDownQueuesBehindReservedAdd(t *testing.T) {
	q := must(NewRing[string](Options{}))
	q.Add("x")
	wantGet(t, q, "x")
	q.Add("x") // dirty: Done re-queues it
	_, sx := q.locate("x")
	a := "a"
	for i := 0; ; i++ { // an item on another stripe, so Done does not wait on its lock
		if _, s := q.locate(a); s != sx {
			break
		}
		a = fmt.Sprint("a", i)
	}
	h, s := q.locate(a)
	s.mu.Lock() // an Add of a, as far as its reservation
	if !q.reserve() {
		t.Fatal("reserve failed")
	}
	q.ShutDown()
	done := make(chan struct{})
	go func() {
		defer close(done)
		q.Done("x")
	}()
	for !blockedIn("sync.(*Mutex).Lock", ").Done(") {
		select {
		case <-done:
			s.mu.Unlock()
			t.Fatal("Done re-queued x after ShutDown without waiting for an Add accepted before it")
		case <-time.After(time.Millisecond):
		}
	}
	c, _ := s.entries.slot(h, a)
	q.enqueue(s.insert(c, h, a))
	s.mu.Unlock()
	q.gate.Wake(1)
	<-done
	for _, want := range []string{a, "x"} {
		wantGet(t, q, want)
		q.Done(want)
	}
}

package workq

import (
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
func waitStack(t *testing.T, blockedIn, caller string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, blockedIn) && strings.Contains(g, caller) {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("no goroutine blocked in %s under %s", blockedIn, caller)
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

package workq

import (
	"sync/atomic"
	"testing"

	"github.com/queuelab/queuelab/queues/registry"
)

// pauseFirstAdd makes the first Add that queues an item stop where another
// Add of that item can first see it, until resume is closed; paused is
// closed once it stops there.
func pauseFirstAdd(t *testing.T) (paused, resume chan struct{}) {
	t.Helper()
	paused, resume = make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	ringAddReleased = func() {
		if once.CompareAndSwap(false, true) {
			close(paused)
			<-resume
		}
	}
	t.Cleanup(func() { ringAddReleased = nil })
	return paused, resume
}

// An Add that finds its item already queued by an Add still in flight
// returns only once the item is where Get takes it, so an item added after
// that Add returned is handed out later (client-go: FIFO by first Add).
func TestRingDedupAddKeepsFIFO(t *testing.T) {
	q := registry.Must(NewRing[string](Options{}))
	defer q.ShutDown()
	paused, resume := pauseFirstAdd(t)
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		q.Add("x")
	}()
	<-paused
	q.Add("x") // deduplicated: x is queued once this returns
	q.Add("y")
	close(resume)
	<-firstDone
	for _, want := range []string{"x", "y"} {
		if got, _ := q.Get(); got != want {
			t.Fatalf("Get = %q, want %q: an item added later overtook one whose Add had returned", got, want)
		}
	}
}

// Add, Get and Done of a steady stream allocate nothing: entries are reused
// from the stripe's free list and the ring's slots lap after lap.
func TestRingCycleAllocatesNothing(t *testing.T) {
	q := registry.Must(NewRing[string](Options{}))
	defer q.ShutDown()
	cycle := func() {
		q.Add("x")
		q.Add("x")
		item, _ := q.Get()
		q.Add(item) // dirty while processing: re-queued by Done
		q.Done(item)
		item, _ = q.Get()
		q.Done(item)
	}
	cycle() // first use: the stripe's table and a free entry
	if n := testing.AllocsPerRun(1000, cycle); n != 0 {
		t.Fatalf("Add/Get/Done cycle allocated %v times, want 0", n)
	}
}

// An Add that began before ShutDown but reaches its item's stripe after it
// is dropped, as client-go drops an Add that takes its lock after
// ShutDown: it must not mark a processing item for re-queueing.
func TestRingAddRacingShutDownDoesNotRequeue(t *testing.T) {
	q := registry.Must(NewRing[string](Options{}))
	q.Add("x")
	if item, _ := q.Get(); item != "x" {
		t.Fatalf("Get = %q, want x", item)
	}
	_, s := q.locate("x")
	s.mu.Lock()
	added := make(chan struct{})
	go func() {
		defer close(added)
		q.Add("x")
	}()
	waitStack(t, "sync.(*Mutex).Lock", ").Add(") // past its first shutdown check
	q.ShutDown()
	s.mu.Unlock()
	<-added
	q.Done("x")
	if item, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get = %q, false after ShutDown; want shutdown: the racing Add re-queued x", item)
	}
}

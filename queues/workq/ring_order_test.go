package workq

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/util/workqueue"
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
	q := must(NewRing[string](Options{}))
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

// Add, Get and Done of a steady stream allocate nothing, in every queue,
// with metrics or without: Mutex's and Sharded's records (and their
// metric times) come from their tables' free-listed slabs, Ring's entries
// from its stripes' free lists, and its ring's slots lap after lap.
func TestCycleAllocatesNothing(t *testing.T) {
	m := Options{MetricsProvider: discard{}, Name: "q"}
	for name, q := range map[string]workqueue.TypedInterface[string]{
		"mutex":           must(NewMutex[string](Options{})),
		"sharded":         must(NewSharded[string](Options{})),
		"ring":            must(NewRing[string](Options{})),
		"mutex/metrics":   must(NewMutex[string](m)),
		"sharded/metrics": must(NewSharded[string](m)),
		"ring/metrics":    must(NewRing[string](m)),
	} {
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
		cycle() // first use: the table and a free record
		if n := testing.AllocsPerRun(1000, cycle); n != 0 {
			t.Errorf("%s: Add/Get/Done cycle allocated %v times, want 0", name, n)
		}
	}
}

// An Add that began before ShutDown but reaches its item's stripe after it
// is dropped, as client-go drops an Add that takes its lock after
// ShutDown: it must not mark a processing item for re-queueing.
func TestRingAddRacingShutDownDoesNotRequeue(t *testing.T) {
	q := must(NewRing[string](Options{}))
	q.Add("x")
	wantGet(t, q, "x")
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

// An Add of a queued item that passed every shutdown check before a
// ShutDown, but reads the item's state only after a Get took it and the
// ShutDown returned, is a duplicate made before the shutdown (client-go:
// the Add found the item dirty under its lock), not a mark for Done to
// hand the item out again: neither Get nor ShutDown takes the stripe lock
// the Add holds.
func TestRingAddSeeingItemProcessingAfterShutDownDoesNotRequeue(t *testing.T) {
	q := must(NewRing[string](Options{}))
	q.Add("x")
	paused, resume := make(chan struct{}), make(chan struct{})
	ringAddMarking = func() {
		close(paused)
		<-resume
	}
	t.Cleanup(func() { ringAddMarking = nil })
	added := make(chan struct{})
	go func() {
		defer close(added)
		q.Add("x") // x is queued: a duplicate
	}()
	<-paused
	ringAddMarking = nil // read by the paused Add only before it closed paused
	wantGet(t, q, "x")
	q.ShutDown()
	close(resume)
	<-added
	q.Done("x")
	if item, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get = %q, false after ShutDown; want shutdown: an Add made while x was queued re-queued it", item)
	}
}

// getPausedAfterPop starts a Get on q and returns once it has taken an item
// off the ready queue but not yet marked it processing; resume lets it
// finish and send what it got.
func getPausedAfterPop(t *testing.T, q *Ring[string]) (got <-chan string, resume func()) {
	t.Helper()
	paused, resumed := make(chan struct{}), make(chan struct{})
	ringGetPopped = func() {
		close(paused)
		<-resumed
	}
	t.Cleanup(func() { ringGetPopped = nil })
	out := make(chan string, 1)
	go func() {
		item, _ := q.Get()
		out <- item
	}()
	<-paused
	ringGetPopped = nil // read by the paused Get only before it closed paused
	return out, func() { close(resumed) }
}

// An Add that comes after a Get took its item off the ready queue but
// before that Get marked it processing is not lost: the pop is the hand-out
// (client-go: the item is processing once Get takes it from the queue), so
// the Add marks it dirty and Done hands it out again.
func TestRingAddBetweenPopAndMarkRequeues(t *testing.T) {
	q := must(NewRing[string](Options{}))
	defer q.ShutDown()
	q.Add("x")
	got, resume := getPausedAfterPop(t, q)
	q.Add("x") // x has left the ready queue: this Add must not be a duplicate
	resume()
	if item := <-got; item != "x" {
		t.Fatalf("Get = %q, want x", item)
	}
	q.Done("x")
	if n := q.Len(); n != 1 {
		t.Fatalf("Len after Done = %d, want 1: the Add made after Get popped x was lost", n)
	}
	wantGet(t, q, "x")
	q.Done("x")
}

// An Add whose item is still in the ready queue stays a duplicate, though a
// Get is between its pop and its mark of another item.
func TestRingAddOfQueuedItemStaysDuplicate(t *testing.T) {
	q := must(NewRing[string](Options{}))
	defer q.ShutDown()
	q.Add("x")
	q.Add("y")
	got, resume := getPausedAfterPop(t, q)
	q.Add("y") // y is still queued behind x
	resume()
	for _, want := range []string{"x", "y"} {
		var item string
		if want == "x" {
			item = <-got
		} else {
			item, _ = q.Get()
		}
		if item != want {
			t.Fatalf("Get = %q, want %q", item, want)
		}
		q.Done(item)
	}
	if n := q.Len(); n != 0 {
		t.Fatalf("Len = %d, want 0: the Add of queued y was counted twice", n)
	}
}

// A Get between its pop and its count has taken its item (Len no longer
// shows it) but is not yet counted processing. client-go's Get takes an
// item and marks it processing in one step, so its drain would wait for
// that item's Done; the Ring's default drain must too, and not return on
// the processing count alone.
func TestRingDrainWaitsForGetBetweenPopAndCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := must(NewRing[string](Options{}))
		q.Add("x")
		got, resume := getPausedAfterPop(t, q)
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			q.ShutDownWithDrain()
		}()
		stillDraining := func(when string) {
			t.Helper()
			synctest.Wait()
			select {
			case <-drained:
				t.Fatalf("ShutDownWithDrain returned %s", when)
			default:
			}
		}
		stillDraining("while a Get held x between its pop and its count")
		resume()
		item := <-got
		stillDraining("while x was processing")
		q.Done(item)
		<-drained
	})
}

// wantGet fails t unless q's next Get hands out want with the queue not
// shut down; the caller still owes the item's Done.
func wantGet(t *testing.T, q *Ring[string], want string) {
	t.Helper()
	if item, shutdown := q.Get(); item != want || shutdown {
		t.Fatalf("Get = %q, %v; want %q, false", item, shutdown, want)
	}
}

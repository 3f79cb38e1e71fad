package queuetest

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/registry"
)

// NewWorkQueue constructs a fresh, empty work queue for one subtest. It is
// called on the subtest's goroutine (inside a synctest bubble for the
// properties that need one), so t.Cleanup may be used.
type NewWorkQueue func(t *testing.T) workqueue.TypedInterface[string]

// drainIssue is client-go's open bug: ShutDownWithDrain returns once nothing
// is processing, even while items are still queued.
const drainIssue = "client-go's ShutDownWithDrain returns while items are still queued " +
	"(known upstream bug, kubernetes/kubernetes#141079)"

// WithClientGoBase declares that the queue under test wraps client-go's
// workqueue.Typed (a delaying or rate-limiting layer over it, say), so the
// suite skips the properties client-go is known to break. RunWorkQueue
// detects an unwrapped *workqueue.Typed by itself.
func WithClientGoBase() Option {
	return func(c *config) {
		c.knownIssue("ShutDownWithDrainWaitsForQueued", drainIssue)
		c.knownIssue("DrainStress", drainIssue)
	}
}

// RunWorkQueue checks the workqueue contract of SPEC.md on queues made by
// newQueue, one subtest per property, each on a fresh queue under a deadlock
// watchdog. Properties the implementation relaxes (WithOrder) and upstream
// bugs (WithKnownIssue, or client-go's *workqueue.Typed, detected) are
// skipped with a message saying why.
func RunWorkQueue(t *testing.T, newQueue NewWorkQueue, opts ...Option) {
	probe := newQueue(t)
	if _, ok := probe.(*workqueue.Typed[string]); ok {
		opts = append(opts, WithClientGoBase())
	}
	probe.ShutDown()
	c := newConfig(opts)
	props := []struct {
		name string
		run  func(*testing.T, NewWorkQueue, config)
		// bubble runs the property inside testing/synctest, for properties
		// that assert a goroutine is still blocked.
		bubble bool
	}{
		{"DedupWhileQueued", wqDedupWhileQueued, false},
		{"AddWhileProcessingRequeuesAfterDone", wqAddWhileProcessing, false},
		{"DoneOfIdleItemIgnored", wqDoneOfIdleItem, false},
		{"FIFOOrder", wqFIFOOrder, false},
		{"RequeueGoesToBack", wqRequeueGoesToBack, false},
		{"Len", wqLen, false},
		{"GetBlocksUntilAdd", wqGetBlocksUntilAdd, true},
		{"ShutDownHandsOutRemaining", wqShutDownHandsOutRemaining, false},
		{"ShutDownWakesBlockedGets", wqShutDownWakesGets, true},
		{"AddAfterShutDownIgnored", wqAddAfterShutDown, false},
		{"ShutDownWithDrainWaitsForDone", wqDrainWaitsForDone, true},
		{"ShutDownWithDrainWaitsForQueued", wqDrainWaitsForQueued, true},
		{"ShutDownEndsDrainEarly", wqShutDownEndsDrain, true},
		{"NeverTwoWorkersOnOneItem", wqNeverTwoWorkers, false},
		{"DoneReleasesItem", wqDoneReleasesItem, false},
		{"Hammer", wqHammer, false},
		{"DrainStress", wqDrainStress, false},
		{"Differential", wqDifferential, false},
	}
	for _, p := range props {
		t.Run(p.name, func(t *testing.T) {
			c.skipKnown(t, p.name)
			watchdog.Run(t, c.timeout, func() {
				if p.bubble {
					synctest.Test(t, func(t *testing.T) { p.run(t, newQueue, c) })
					return
				}
				p.run(t, newQueue, c)
			})
		})
	}
}

// fresh makes a queue for one property and shuts it down when the property
// ends, so no implementation goroutine outlives it.
func fresh(t *testing.T, newQueue NewWorkQueue) workqueue.TypedInterface[string] {
	t.Helper()
	q := newQueue(t)
	if q == nil {
		t.Fatal("newQueue returned nil")
	}
	t.Cleanup(q.ShutDown)
	return q
}

func mustGet(t *testing.T, q workqueue.TypedInterface[string], want string) {
	t.Helper()
	got, shutdown := q.Get()
	if shutdown || got != want {
		t.Fatalf("Get() = (%q, shutdown=%v), want (%q, false)", got, shutdown, want)
	}
}

func mustLen(t *testing.T, q workqueue.TypedInterface[string], want int) {
	t.Helper()
	if got := q.Len(); got != want {
		t.Fatalf("Len() = %d, want %d", got, want)
	}
}

func mustShutdownGet(t *testing.T, q workqueue.TypedInterface[string]) {
	t.Helper()
	if got, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get() = (%q, false), want shutdown", got)
	}
}

// getAll gets n items and returns them in hand-out order.
func getAll(t *testing.T, q workqueue.TypedInterface[string], n int) []string {
	t.Helper()
	out := make([]string, 0, n)
	for range n {
		item, shutdown := q.Get()
		if shutdown {
			t.Fatalf("Get() reported shutdown after %d of %d items", len(out), n)
		}
		out = append(out, item)
	}
	return out
}

func wqDedupWhileQueued(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	q.Add("a")
	q.Add("b")
	q.Add("a")
	q.Add("a")
	mustLen(t, q, 2)
	got := getAll(t, q, 2)
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("handed out %q, want a and b once each", got)
	}
	mustLen(t, q, 0)
}

func wqAddWhileProcessing(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	q.Add("a")
	mustGet(t, q, "a")
	q.Add("a")
	q.Add("a")
	mustLen(t, q, 0) // dirty, not queued, while processing
	q.Done("a")
	mustLen(t, q, 1)
	mustGet(t, q, "a")
	q.Done("a")
	mustLen(t, q, 0)
	q.Add("a") // idle again: queued at once
	mustLen(t, q, 1)
}

func wqDoneOfIdleItem(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	q.Done("never-added")
	mustLen(t, q, 0)
	q.Add("a")
	mustGet(t, q, "a")
	q.Done("a")
	q.Done("a") // a second Done of an idle item changes nothing
	mustLen(t, q, 0)
	q.Add("a")
	mustLen(t, q, 1)
}

func wqFIFOOrder(t *testing.T, newQueue NewWorkQueue, c config) {
	const n = 200
	q := fresh(t, newQueue)
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("item-%03d", i)
		q.Add(want[i])
	}
	got := getAll(t, q, n)
	if c.order == registry.OrderFIFO {
		if !slices.Equal(got, want) {
			t.Fatalf("hand-out order\n got %q\nwant %q", got, want)
		}
		return
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("with %v order, handed out %q, want each of %q once", c.order, got, want)
	}
	t.Logf("[relaxed] order %v: checked the multiset only", c.order)
}

func wqRequeueGoesToBack(t *testing.T, newQueue NewWorkQueue, c config) {
	if c.order != registry.OrderFIFO {
		t.Skipf("[relaxed] order %v: no cross-item order to check", c.order)
	}
	q := fresh(t, newQueue)
	q.Add("a")
	q.Add("b")
	mustGet(t, q, "a")
	q.Add("a")
	q.Add("c")
	q.Done("a") // re-queued behind b and c
	mustGet(t, q, "b")
	mustGet(t, q, "c")
	mustGet(t, q, "a")
}

func wqLen(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	mustLen(t, q, 0)
	for i := range 10 {
		q.Add(fmt.Sprint(i))
		mustLen(t, q, i+1)
	}
	got := getAll(t, q, 4)
	mustLen(t, q, 6) // processing items are not counted
	for _, item := range got {
		q.Done(item)
	}
	mustLen(t, q, 6)
}

func wqGetBlocksUntilAdd(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	got := make(chan string, 1)
	go func() {
		item, _ := q.Get()
		got <- item
	}()
	synctest.Wait()
	select {
	case item := <-got:
		t.Fatalf("Get on an empty queue returned %q", item)
	default:
	}
	q.Add("a")
	if item := <-got; item != "a" {
		t.Fatalf("blocked Get returned %q, want a", item)
	}
}

func wqShutDownHandsOutRemaining(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	if q.ShuttingDown() {
		t.Fatal("ShuttingDown() = true on a new queue")
	}
	q.Add("a")
	mustGet(t, q, "a") // processing across the shutdown
	q.Add("b")
	q.Add("a") // dirty: re-queued by Done even after shutdown
	q.ShutDown()
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown() = false after ShutDown")
	}
	mustGet(t, q, "b")
	q.Done("a")
	mustGet(t, q, "a")
	mustShutdownGet(t, q)
	q.Done("b")
	q.Done("a")
	mustShutdownGet(t, q)
}

func wqShutDownWakesGets(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	const getters = 4
	results := make(chan bool, getters)
	for range getters {
		go func() {
			_, shutdown := q.Get()
			results <- shutdown
		}()
	}
	synctest.Wait()
	q.ShutDown()
	for range getters {
		if !<-results {
			t.Fatal("a Get blocked across ShutDown returned an item")
		}
	}
}

func wqAddAfterShutDown(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	q.ShutDown()
	q.Add("late")
	mustLen(t, q, 0)
	mustShutdownGet(t, q)
}

// startDrain runs ShutDownWithDrain in a goroutine and returns a channel
// closed when it returns.
func startDrain(q workqueue.TypedInterface[string]) <-chan struct{} {
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		q.ShutDownWithDrain()
	}()
	return returned
}

func mustBlock(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	synctest.Wait()
	select {
	case <-ch:
		t.Fatalf("%s returned early", what)
	default:
	}
}

func mustReturn(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	synctest.Wait()
	select {
	case <-ch:
	default:
		t.Fatalf("%s still blocked", what)
	}
}

func wqDrainWaitsForDone(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	q.Add("a")
	mustGet(t, q, "a")
	returned := startDrain(q)
	mustBlock(t, returned, "ShutDownWithDrain with an item processing")
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown() = false during ShutDownWithDrain")
	}
	q.Add("b") // ignored: shutting down
	q.Done("a")
	mustReturn(t, returned, "ShutDownWithDrain after the last Done")
	mustShutdownGet(t, q)
}

// wqDrainWaitsForQueued is issue 7's property: ShutDownWithDrain also waits
// for items still queued, which a worker must yet Get and Done.
func wqDrainWaitsForQueued(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	q.Add("a")
	q.Add("b")
	first, _ := q.Get()
	returned := startDrain(q)
	mustBlock(t, returned, "ShutDownWithDrain with items processing and queued")
	q.Done(first)
	mustBlock(t, returned, "ShutDownWithDrain with an item still queued")
	second, shutdown := q.Get()
	if shutdown {
		t.Fatal("Get reported shutdown with an item still queued")
	}
	mustBlock(t, returned, "ShutDownWithDrain with an item processing")
	q.Done(second)
	mustReturn(t, returned, "ShutDownWithDrain after the last Done")
}

func wqShutDownEndsDrain(t *testing.T, newQueue NewWorkQueue, c config) {
	q := fresh(t, newQueue)
	q.Add("a")
	mustGet(t, q, "a")
	returned := startDrain(q)
	mustBlock(t, returned, "ShutDownWithDrain with an item processing")
	q.ShutDown()
	mustReturn(t, returned, "ShutDownWithDrain after ShutDown")
	q.Done("a")
}

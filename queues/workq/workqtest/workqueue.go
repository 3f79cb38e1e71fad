package workqtest

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/queuelab/queuelab/guarantee"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/internal/suite"
)

// newStrings builds a fresh, empty queue of string keys, the item type most
// properties use.
type newStrings = func() workqueue.TypedInterface[string]

// Queues are the constructors Run checks, one per item type a controller
// instantiates the generic queue with: string keys (client-go's
// controllers), controller-runtime's reconcile.Request (a struct; Request
// here) and any (workqueue.Interface). The suite needs all three because an
// implementation may treat them differently (hash a string's bytes, compare
// structs field by field, tell 1 from int64(1) only by dynamic type). Each
// constructor is called once per property, on the property's goroutine or
// inside its testing/synctest bubble, and must return a fresh, empty queue.
type Queues struct {
	// Strings builds a queue of string keys, what client-go's controllers
	// queue; most properties use it.
	Strings func() workqueue.TypedInterface[string]
	// Requests builds a queue of struct items, as controller-runtime
	// instantiates it.
	Requests func() workqueue.TypedInterface[Request]
	// Any builds a workqueue.Interface, whose items differ by dynamic type.
	Any func() workqueue.TypedInterface[any]
}

// Run checks the workqueue contract (see the package doc) on queues made by
// qs, one subtest per property, each on a fresh queue under a deadlock
// watchdog. Properties that need a guarantee g does not declare are skipped
// with a message saying which. Its differential property runs Diff's check
// for seeds 1 to diffSeeds; a failure names the seed, and
// Diff(t, qs.Strings, g, SeedOps(seed)) replays it alone.
func Run(t *testing.T, qs Queues, g Guarantees) {
	t.Helper()
	s := wqSuite{newQueue: qs.Strings}
	suite.Run(t, 0, []suite.Property{
		{Name: "dedup-while-queued", Run: s.plain(wqDedupWhileQueued)},
		{Name: "add-while-processing-requeues-after-done", Run: s.plain(wqAddWhileProcessing)},
		{Name: "done-of-idle-item-is-ignored", Run: s.plain(wqDoneOfIdleItem)},
		{Name: "done-releases-item", Run: s.plain(wqDoneReleasesItem)},
		{Name: "hands-out-every-item-once", Run: s.plain(wqHandsOutEveryItemOnce)},
		{Name: "fifo-order", Skip: suite.Unless(g.Order == guarantee.OrderFIFO, relaxedOrder), Run: s.plain(wqFIFOOrder)},
		{Name: "requeue-goes-to-back", Skip: suite.Unless(g.Order == guarantee.OrderFIFO, relaxedOrder), Run: s.plain(wqRequeueGoesToBack)},
		{Name: "len-counts-queued-items", Run: s.plain(wqLen)},
		{Name: "get-blocks-until-add", Run: s.bubble(wqGetBlocksUntilAdd)},
		{Name: "shutdown-hands-out-remaining", Run: s.plain(wqShutDownHandsOutRemaining)},
		{Name: "shutdown-wakes-blocked-gets", Run: s.bubble(wqShutDownWakesGets)},
		{Name: "add-after-shutdown-is-ignored", Run: s.plain(wqAddAfterShutDown)},
		{Name: "drain-waits-for-done", Run: s.bubble(wqDrainWaitsForDone)},
		{Name: "drain-waits-for-queued", Skip: suite.Unless(g.DrainsQueued, relaxedDrain), Run: s.bubble(wqDrainWaitsForQueued)},
		{Name: "drain-returns-when-nothing-processing", Skip: suite.Unless(!g.DrainsQueued, drainsQueued), Run: s.bubble(wqDrainReturnsWhenNothingProcessing)},
		{Name: "shutdown-ends-drain-early", Run: s.bubble(wqShutDownEndsDrain)},
		{Name: "never-two-workers-on-one-item", Run: s.plain(wqNeverTwoWorkers)},
		{Name: "hammer-exact-accounting", Run: s.plain(wqHammer)},
		{Name: "drain-under-load", Skip: suite.Unless(g.DrainsQueued, relaxedDrain), Run: s.plain(wqDrainStress)},
		{Name: "drain-under-load-leaves-queued-to-get", Skip: suite.Unless(!g.DrainsQueued, drainsQueued), Run: s.plain(wqDrainStressClientGo)},
		{Name: "differential-vs-clientgo", Run: func(t *testing.T) { diffSeeded(t, qs.Strings, g) }},
		{Name: "struct-items-follow-the-per-item-rules", Run: func(t *testing.T) { requestItems(t, qs.Requests, g) }},
		{Name: "struct-items-under-concurrent-workers", Run: func(t *testing.T) { requestItemsConcurrent(t, qs.Requests) }},
		{Name: "any-items-differ-by-dynamic-type", Run: func(t *testing.T) { anyItems(t, qs.Any) }},
	})
}

// wqSuite adapts the string-item properties to suite.Property.Run.
type wqSuite struct{ newQueue newStrings }

func (s wqSuite) plain(p func(*testing.T, newStrings)) func(*testing.T) {
	return func(t *testing.T) { p(t, s.newQueue) }
}

// bubble runs p inside testing/synctest, for properties that assert a
// goroutine is still blocked.
func (s wqSuite) bubble(p func(*testing.T, newStrings)) func(*testing.T) {
	return func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { p(t, s.newQueue) })
	}
}

// fresh makes a queue for one property and shuts it down when the property
// ends, so no implementation goroutine outlives it.
func fresh(t *testing.T, newQueue newStrings) workqueue.TypedInterface[string] {
	t.Helper()
	q := newQueue()
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

func wqDedupWhileQueued(t *testing.T, newQueue newStrings) {
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

func wqAddWhileProcessing(t *testing.T, newQueue newStrings) {
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

func wqDoneOfIdleItem(t *testing.T, newQueue newStrings) {
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

func wqFIFOOrder(t *testing.T, newQueue newStrings) {
	q := fresh(t, newQueue)
	want := addNumbered(q, 200)
	if got := getAll(t, q, len(want)); !slices.Equal(got, want) {
		t.Fatalf("hand-out order\n got %q\nwant %q", got, want)
	}
}

// wqHandsOutEveryItemOnce holds for every order: what is added comes out,
// each item once.
func wqHandsOutEveryItemOnce(t *testing.T, newQueue newStrings) {
	q := fresh(t, newQueue)
	want := addNumbered(q, 200)
	got := getAll(t, q, len(want))
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("handed out %q, want each of %q once", got, want)
	}
}

// addNumbered adds n distinct items, in sorted order, and returns them.
func addNumbered(q workqueue.TypedInterface[string], n int) []string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("item-%03d", i)
		q.Add(items[i])
	}
	return items
}

func wqRequeueGoesToBack(t *testing.T, newQueue newStrings) {
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

func wqLen(t *testing.T, newQueue newStrings) {
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

func wqGetBlocksUntilAdd(t *testing.T, newQueue newStrings) {
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

func wqShutDownHandsOutRemaining(t *testing.T, newQueue newStrings) {
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

func wqShutDownWakesGets(t *testing.T, newQueue newStrings) {
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

func wqAddAfterShutDown(t *testing.T, newQueue newStrings) {
	q := fresh(t, newQueue)
	q.ShutDown()
	q.Add("late")
	mustLen(t, q, 0)
	mustShutdownGet(t, q)
}

// drainingWhileProcessing starts ShutDownWithDrain on a fresh queue holding
// items, one of which (first) a Get has handed out and is processing,
// checks that it waits, and returns the queue, first and the channel
// closed when it returns.
func drainingWhileProcessing(t *testing.T, newQueue newStrings, items ...string) (q workqueue.TypedInterface[string], first string, returned <-chan struct{}) {
	t.Helper()
	q = fresh(t, newQueue)
	for _, item := range items {
		q.Add(item)
	}
	first, shutdown := q.Get()
	if shutdown || !slices.Contains(items, first) {
		t.Fatalf("Get() = (%q, shutdown=%v), want one of %q", first, shutdown, items)
	}
	what := "ShutDownWithDrain with an item processing"
	if len(items) > 1 {
		what += " and others queued"
	}
	returned = suite.StartDrain(q)
	suite.MustBlock(t, returned, what)
	return q, first, returned
}

func wqDrainWaitsForDone(t *testing.T, newQueue newStrings) {
	q, _, returned := drainingWhileProcessing(t, newQueue, "a")
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown() = false during ShutDownWithDrain")
	}
	q.Add("b") // ignored: shutting down
	q.Done("a")
	suite.MustReturn(t, returned, "ShutDownWithDrain after the last Done")
	mustShutdownGet(t, q)
}

// wqDrainWaitsForQueued is issue 7's property: ShutDownWithDrain also waits
// for items still queued, which a worker must yet Get and Done.
func wqDrainWaitsForQueued(t *testing.T, newQueue newStrings) {
	q, first, returned := drainingWhileProcessing(t, newQueue, "a", "b")
	q.Done(first)
	suite.MustBlock(t, returned, "ShutDownWithDrain with an item still queued")
	second, shutdown := q.Get()
	if shutdown {
		t.Fatal("Get reported shutdown with an item still queued")
	}
	suite.MustBlock(t, returned, "ShutDownWithDrain with an item processing")
	q.Done(second)
	suite.MustReturn(t, returned, "ShutDownWithDrain after the last Done")
}

// wqDrainReturnsWhenNothingProcessing pins what client-go's
// ShutDownWithDrain does, as opposed to what it documents
// (kubernetes/kubernetes#141079): it returns at once when nothing is
// processing, even with items queued, and as soon as the last processing
// item is Done, even with others still queued; Get goes on handing those
// out after it returned, and reports shutdown once they are gone. A
// drop-in that waited here would hang a shutdown client-go's finishes (a
// controller draining with no worker running).
func wqDrainReturnsWhenNothingProcessing(t *testing.T, newQueue newStrings) {
	q := fresh(t, newQueue)
	q.Add("a")
	suite.MustReturn(t, suite.StartDrain(q), "ShutDownWithDrain with an item queued and nothing processing")
	mustLen(t, q, 1)
	mustGet(t, q, "a")
	q.Done("a")
	mustShutdownGet(t, q)

	q, first, returned := drainingWhileProcessing(t, newQueue, "a", "b")
	q.Done(first)
	suite.MustReturn(t, returned, "ShutDownWithDrain after the last Done, with an item still queued")
	mustLen(t, q, 1)
	second, shutdown := q.Get()
	if shutdown || second == first {
		t.Fatalf("Get() after the drain = (%q, shutdown=%v), want the other queued item", second, shutdown)
	}
	q.Done(second)
	mustShutdownGet(t, q)
}

func wqShutDownEndsDrain(t *testing.T, newQueue newStrings) {
	q, _, returned := drainingWhileProcessing(t, newQueue, "a")
	q.ShutDown()
	suite.MustReturn(t, returned, "ShutDownWithDrain after ShutDown")
	q.Done("a")
}

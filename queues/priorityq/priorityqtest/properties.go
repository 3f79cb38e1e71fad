package priorityqtest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/utils/ptr"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/priorityq"
)

// queue is the interface under test.
type queue = priorityq.PriorityQueue[string]

// build builds a queue with o, or fails t.
func build(t *testing.T, newQueue NewQueue, o priorityq.Options[string]) queue {
	t.Helper()
	q, err := newQueue(o)
	if err != nil {
		t.Fatalf("building the queue with %+v: %v", o, err)
	}
	return q
}

// open builds a queue for a property and shuts it down when it ends.
func open(t *testing.T, newQueue NewQueue, o priorityq.Options[string]) queue {
	t.Helper()
	q := build(t, newQueue, o)
	t.Cleanup(func() {
		if !q.ShuttingDown() { // controller-runtime's ShutDown panics when called twice
			q.ShutDown()
		}
	})
	return q
}

// processing opens a queue with o whose one item, a, a Get has handed out
// and which is being processed: where the properties about re-adds, Done
// and draining start.
func processing(t *testing.T, newQueue NewQueue, o priorityq.Options[string]) queue {
	t.Helper()
	q := open(t, newQueue, o)
	q.Add("a")
	expectGets(t, q, "a@0")
	return q
}

func at(p int) priorityq.AddOpts { return priorityq.AddOpts{Priority: ptr.To(p)} }

// result is what one GetWithPriority returned.
type result struct {
	item     string
	prio     int
	shutdown bool
}

func (r result) String() string {
	if r.shutdown {
		return fmt.Sprintf("shutdown(%q)", r.item)
	}
	return fmt.Sprintf("%s@%d", r.item, r.prio)
}

// pending is a GetWithPriority running on its own goroutine.
type pending chan result

func startGet(q queue) pending {
	p := make(pending, 1)
	go func() {
		item, prio, shutdown := q.GetWithPriority()
		p <- result{item, prio, shutdown}
	}()
	return p
}

// poll returns the Get's result if it has returned; inside a bubble, call
// synctest.Wait first so that "not yet" means blocked.
func (p pending) poll() (result, bool) {
	select {
	case r := <-p:
		return r, true
	default:
		return result{}, false
	}
}

// mustGet is a Get that must not block.
// expectShutdown fails unless a Get, reported as what, returns shutdown at
// once with no item.
func expectShutdown(t *testing.T, q queue, what string) {
	t.Helper()
	if r := mustGet(t, q); r != (result{shutdown: true}) {
		t.Fatalf("%s = %v, want shutdown(\"\")", what, r)
	}
}

func mustGet(t *testing.T, q queue) result {
	t.Helper()
	p := startGet(q)
	synctest.Wait()
	r, ok := p.poll()
	if !ok {
		t.Fatalf("Get blocked; Len is %d", q.Len())
	}
	return r
}

func expectGets(t *testing.T, q queue, want ...string) {
	t.Helper()
	for i, w := range want {
		if r := mustGet(t, q); r.String() != w {
			t.Fatalf("Get #%d = %v, want %s", i+1, r, w)
		}
	}
}

// expectGetsAnyOrder is expectGets for items that became ready at the same
// instant, whose relative order no queue promises.
func expectGetsAnyOrder(t *testing.T, q queue, want ...string) {
	t.Helper()
	got := make([]string, len(want))
	for i := range got {
		got[i] = mustGet(t, q).String()
	}
	slices.Sort(got)
	if !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Fatalf("Gets = %v, want %v in any order", got, want)
	}
}

func expectLen(t *testing.T, q queue, want int) {
	t.Helper()
	synctest.Wait()
	if n := q.Len(); n != want {
		t.Fatalf("Len = %d, want %d", n, want)
	}
}

func expectBlocked(t *testing.T, p pending, what string) {
	t.Helper()
	synctest.Wait()
	if r, ok := p.poll(); ok {
		t.Fatalf("%s returned %v, want it still blocked", what, r)
	}
}

func expectReturned(t *testing.T, p pending, want string) {
	t.Helper()
	synctest.Wait()
	r, ok := p.poll()
	if !ok {
		t.Fatalf("Get still blocked, want %s", want)
	}
	if r.String() != want {
		t.Fatalf("Get = %v, want %s", r, want)
	}
}

func dedupMaxPriority(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.AddWithOpts(at(1), "a")
	q.AddWithOpts(at(5), "a")
	q.AddWithOpts(at(3), "a")
	q.Add("a")
	expectLen(t, q, 1)
	expectGets(t, q, "a@5")
	expectLen(t, q, 0)
}

func priorityOrder(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.AddWithOpts(at(0), "zero")
	q.AddWithOpts(at(10), "ten")
	q.AddWithOpts(at(-5), "minus-five")
	q.AddWithOpts(at(3), "three", "three-too")
	q.AddWithOpts(at(3), "three")
	expectGets(t, q, "ten@10")
	first := mustGet(t, q)
	second := mustGet(t, q)
	if first.prio != 3 || second.prio != 3 || first.item == second.item {
		t.Fatalf("Gets 2 and 3 = %v, %v, want both priority-3 items", first, second)
	}
	expectGets(t, q, "zero@0", "minus-five@-5")
}

func fifoWithinPriority(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	var want []string
	for i := range 20 {
		q.AddWithOpts(at(1), fmt.Sprint("one-", i))
		q.Add(fmt.Sprint("zero-", i))
		want = append(want, fmt.Sprintf("one-%d@1", i))
	}
	for i := range 20 {
		want = append(want, fmt.Sprintf("zero-%d@0", i))
	}
	expectGets(t, q, want...)
}

func raisedGoesBehind(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.Add("a")
	q.AddWithOpts(at(5), "b", "c")
	q.AddWithOpts(at(5), "a")
	q.AddWithOpts(at(5), "b") // same priority: keeps its place
	expectGets(t, q, "b@5", "c@5", "a@5")
}

func addWhileProcessing(t *testing.T, newQueue NewQueue) {
	q := processing(t, newQueue, priorityq.Options[string]{})
	q.AddWithOpts(at(7), "a")
	expectLen(t, q, 1)
	p := startGet(q)
	expectBlocked(t, p, "a Get while the only queued item is being processed")
	q.Done("a")
	expectReturned(t, p, "a@7")
	q.Done("a")
	expectLen(t, q, 0)
}

func addWhileProcessingKeepsPlace(t *testing.T, newQueue NewQueue) {
	q := processing(t, newQueue, priorityq.Options[string]{})
	q.Add("a")
	q.Add("b")
	expectGets(t, q, "b@0")
	q.Add("c")
	q.Done("a")
	expectGets(t, q, "a@0", "c@0")
}

func doneOfIdle(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.Done("nobody")
	q.Add("a")
	q.Done("a") // queued, not processing
	expectLen(t, q, 1)
	expectGets(t, q, "a@0")
	q.Done("a")
	q.Done("a")
	expectLen(t, q, 0)
}

func getBlocksUntilAdd(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	p := startGet(q)
	expectBlocked(t, p, "Get on an empty queue")
	q.AddWithOpts(at(2), "a")
	expectReturned(t, p, "a@2")
}

func addAfterWaits(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.AddAfter("a", time.Second)
	expectLen(t, q, 0)
	p := startGet(q)
	time.Sleep(999 * time.Millisecond)
	expectBlocked(t, p, "Get before the delay elapsed")
	time.Sleep(time.Millisecond)
	expectReturned(t, p, "a@0")
	q.AddAfter("b", 0) // no delay
	expectGets(t, q, "b@0")
	q.AddAfter("c", -time.Second)
	expectGets(t, q, "c@0")
}

func earliestDelayWins(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.AddAfter("a", 10*time.Second)
	q.AddAfter("a", time.Second)
	q.AddAfter("b", time.Second)
	q.AddAfter("b", 10*time.Second)
	time.Sleep(time.Second)
	expectLen(t, q, 2)
	expectGetsAnyOrder(t, q, "a@0", "b@0")
}

func addReadiesWaiting(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.AddAfter("a", time.Hour)
	q.AddWithOpts(at(4), "a")
	expectLen(t, q, 1)
	expectGets(t, q, "a@4")
}

func delayedAddOfReady(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.Add("a")
	q.AddAfter("a", time.Hour)
	q.AddWithOpts(priorityq.AddOpts{After: time.Hour, Priority: ptr.To(9)}, "a")
	expectLen(t, q, 1)
	expectGets(t, q, "a@9")
}

func expiredOrder(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.AddWithOpts(priorityq.AddOpts{After: 2 * time.Second}, "late")
	q.AddWithOpts(priorityq.AddOpts{After: time.Second}, "early")
	q.AddWithOpts(priorityq.AddOpts{After: 2 * time.Second, Priority: ptr.To(5)}, "high")
	q.Add("now")
	time.Sleep(2 * time.Second)
	expectLen(t, q, 4)
	expectGets(t, q, "high@5", "now@0", "early@0", "late@0")
}

// fixedLimiter delays every item by d and counts calls per item.
type fixedLimiter struct {
	d      time.Duration
	mu     sync.Mutex
	counts map[string]int
}

func newFixedLimiter(d time.Duration) *fixedLimiter {
	return &fixedLimiter{d: d, counts: map[string]int{}}
}

func (l *fixedLimiter) When(item string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts[item]++
	return l.d
}

func (l *fixedLimiter) Forget(item string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.counts, item)
}

func (l *fixedLimiter) NumRequeues(item string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[item]
}

func rateLimited(t *testing.T, newQueue NewQueue) {
	lim := newFixedLimiter(2 * time.Second)
	q := open(t, newQueue, priorityq.Options[string]{RateLimiter: lim})
	q.AddRateLimited("a")
	q.AddWithOpts(priorityq.AddOpts{RateLimited: true, After: 5 * time.Second}, "b") // the limiter's is shorter
	q.AddWithOpts(priorityq.AddOpts{RateLimited: true, After: time.Second}, "c")     // After is shorter
	expectLen(t, q, 0)
	if n := q.NumRequeues("a"); n != 1 {
		t.Fatalf("NumRequeues(a) = %d, want the limiter's 1", n)
	}
	q.Forget("a")
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues(a) after Forget = %d, want 0", n)
	}
	time.Sleep(time.Second)
	expectLen(t, q, 1)
	expectGets(t, q, "c@0")
	time.Sleep(time.Second)
	expectLen(t, q, 2)
	expectGetsAnyOrder(t, q, "a@0", "b@0")
}

func lenCountsReady(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.AddWithOpts(at(1), "a", "b")
	q.AddAfter("c", time.Second)
	expectLen(t, q, 2)
}

func addAfterShutdown(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.ShutDown()
	q.Add("a")
	q.AddWithOpts(at(3), "b")
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false after ShutDown")
	}
	expectLen(t, q, 0)
	if r := mustGet(t, q); !r.shutdown {
		t.Fatalf("Get after ShutDown of an empty queue = %v, want shutdown", r)
	}
}

func shutdownWakesGets(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	ps := []pending{startGet(q), startGet(q), startGet(q)}
	for _, p := range ps {
		expectBlocked(t, p, "Get on an empty queue")
	}
	q.ShutDown()
	for _, p := range ps {
		expectReturned(t, p, `shutdown("")`)
	}
}

// drainOpts asks for the opt-in drain.
var drainOpts = priorityq.Options[string]{DrainOnShutdown: true}

// shutdownWithReadyItems: controller-runtime's Get reports shutdown at once
// after ShutDown, with items ready of any priority and delayed.
func shutdownWithReadyItems(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	q.Add("a")
	q.AddWithOpts(at(1), "b")
	q.AddAfter("later", time.Second)
	expectLen(t, q, 2)
	q.ShutDown()
	for range 2 {
		expectShutdown(t, q, "Get after ShutDown with items ready")
	}
}

// shutdownWithItemReAdded: an item processing and added again, whose Done
// never comes, blocks no Get after ShutDown, whether the Get was blocked
// before ShutDown or called after it.
func shutdownWithItemReAdded(t *testing.T, newQueue NewQueue) {
	q := processing(t, newQueue, priorityq.Options[string]{})
	q.Add("a")
	blocked := startGet(q)
	expectBlocked(t, blocked, "Get while the only item is processing")
	q.ShutDown()
	expectReturned(t, blocked, `shutdown("")`)
	expectShutdown(t, q, "Get after ShutDown with a re-added item processing")
	q.Done("a")
	expectShutdown(t, q, "Get after ShutDown and the re-added item's Done")
}

// shutdownWithDrainDoesNotWait: controller-runtime's ShutDownWithDrain is
// ShutDown.
func shutdownWithDrainDoesNotWait(t *testing.T, newQueue NewQueue) {
	q := processing(t, newQueue, priorityq.Options[string]{})
	q.Add("b")
	suite.MustReturn(t, suite.StartDrain(q), "ShutDownWithDrain without DrainOnShutdown (a processing, b queued)")
	expectShutdown(t, q, "Get after ShutDownWithDrain")
	q.Done("a")
}

func getAfterShutdown(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, drainOpts)
	q.Add("a")
	q.AddWithOpts(at(1), "b")
	q.AddAfter("later", time.Second)
	q.ShutDown()
	expectGets(t, q, "b@1", "a@0")
	if r := mustGet(t, q); !r.shutdown {
		t.Fatalf("Get after the ready items = %v, want shutdown (delayed items are dropped)", r)
	}
}

// drainSkipsReAddedItems: a draining Get does not wait for the Done of an
// item added again while processing; that Done makes it ready, and the
// next Get hands it out.
func drainSkipsReAddedItems(t *testing.T, newQueue NewQueue) {
	q := processing(t, newQueue, drainOpts)
	q.Add("a")
	q.ShutDown()
	expectShutdown(t, q, "draining Get with only a re-added item processing")
	q.Done("a")
	expectGets(t, q, "a@0")
	q.Done("a")
	expectShutdown(t, q, "draining Get of an empty queue")
}

func drainWaitsForDone(t *testing.T, newQueue NewQueue) {
	q := processing(t, newQueue, drainOpts)
	q.Add("b")
	drained := suite.StartDrain(q)
	synctest.Wait()
	expectGets(t, q, "b@0")
	q.Done("b")
	suite.MustBlock(t, drained, "ShutDownWithDrain while a is processing")
	q.Done("a")
	suite.MustReturn(t, drained, "ShutDownWithDrain with nothing queued or processing")
}

func shutdownEndsDrain(t *testing.T, newQueue NewQueue) {
	q := processing(t, newQueue, drainOpts)
	drained := suite.StartDrain(q)
	suite.MustBlock(t, drained, "ShutDownWithDrain while a is processing")
	q.ShutDown()
	suite.MustReturn(t, drained, "ShutDownWithDrain after ShutDown")
	q.Done("a")
}

// fullIntPriorities: priorities beyond 32 bits keep their order and the
// highest-of rule; none is clamped.
func fullIntPriorities(t *testing.T, newQueue NewQueue) {
	q := open(t, newQueue, priorityq.Options[string]{})
	const big = 1 << 40
	q.AddWithOpts(at(big), "a")
	q.AddWithOpts(at(big+1), "b")
	q.AddWithOpts(at(big+7), "c")
	q.AddWithOpts(at(big+3), "c") // lower: c keeps big+7
	q.AddWithOpts(at(big+9), "a") // higher: a rises above c
	q.AddWithOpts(at(-big), "d")
	q.AddWithOpts(at(-big+1), "e")
	expectGets(t, q, fmt.Sprint("a@", big+9), fmt.Sprint("c@", big+7), fmt.Sprint("b@", big+1), fmt.Sprint("e@", -big+1), fmt.Sprint("d@", -big))
}

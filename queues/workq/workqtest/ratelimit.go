package workqtest

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/queuelab/queuelab/internal/suite"
)

// RateLimitingQueues are the constructors RunRateLimiting checks, one per
// item type as in Queues. Each builds a fresh, empty rate-limiting queue
// that reads time from clk and asks limiter for delays; the rate-limiting
// properties call it inside a testing/synctest bubble with a fake clock.
type RateLimitingQueues struct {
	// Strings builds the queue the rate-limiting properties use with each
	// client-go limiter.
	Strings func(clk clock.WithTicker, limiter workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string]
	// Requests builds the queue of the controller-runtime-style property;
	// with Any, it also builds the queues the delaying and workqueue
	// properties run on.
	Requests func(clk clock.WithTicker, limiter workqueue.TypedRateLimiter[Request]) workqueue.TypedRateLimitingInterface[Request]
	Any      func(clk clock.WithTicker, limiter workqueue.TypedRateLimiter[any]) workqueue.TypedRateLimitingInterface[any]
}

// RunRateLimiting checks the rate-limiting layer's contract (see the
// package doc) with every client-go limiter: for each AddRateLimited the
// item must become ready exactly when the limiter says — not a nanosecond
// before — and NumRequeues and Forget must be the limiter's, for string
// and struct items. Then, in the subtest "delaying", it runs RunDelaying
// under g on the same constructors (with client-go's default controller
// limiter), since a rate-limiting queue is a delaying queue and a work
// queue too. Runs in synctest bubbles with a fake clock, like RunDelaying.
func RunRateLimiting(t *testing.T, qs RateLimitingQueues, g Guarantees) {
	t.Helper()
	run := func(limiter func() workqueue.TypedRateLimiter[string], p func(*testing.T, *rlHarness)) func(*testing.T) {
		return func(t *testing.T) {
			inBubble(t, func(t *testing.T, clk *clocktesting.FakeClock) {
				l := limiter()
				q := qs.Strings(clk, l)
				if q == nil {
					t.Fatal("newQueue returned nil")
				}
				defer q.ShutDown()
				p(t, &rlHarness{q: q, clk: clk, limiter: l})
			})
		}
	}
	exponential := func() workqueue.TypedRateLimiter[string] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
	}
	suite.Run(t, 0, []suite.Property{
		{Name: "exponential", Run: run(exponential, rlExponential)},
		{Name: "exponential-huge-failure-count", Run: run(func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 1000*time.Second)
		}, rlExponentialHuge)},
		{Name: "fast-slow", Run: run(func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedItemFastSlowRateLimiter[string](2*time.Millisecond, 30*time.Second, 3)
		}, rlFastSlow)},
		{Name: "max-of", Run: run(func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedMaxOfRateLimiter(
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Second),
				workqueue.NewTypedItemFastSlowRateLimiter[string](5*time.Millisecond, time.Second, 2))
		}, rlMaxOf)},
		{Name: "bucket", Run: run(func() workqueue.TypedRateLimiter[string] {
			return &workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), 2)}
		}, rlBucket)},
		{Name: "with-max-wait", Run: run(func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedWithMaxWaitRateLimiter(
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Hour), 10*time.Second)
		}, rlWithMaxWait)},
		{Name: "default-controller", Run: run(workqueue.DefaultTypedControllerRateLimiter[string], rlDefaultController)},
		{Name: "delegates-to-the-limiter", Run: run(func() workqueue.TypedRateLimiter[string] { return newRecordingLimiter() }, rlDelegates)},
		{Name: "nothing-after-shutdown", Run: run(exponential, rlNothingAfterShutDown)},
		{Name: "struct-items-like-controller-runtime", Run: func(t *testing.T) {
			inBubble(t, func(t *testing.T, clk *clocktesting.FakeClock) { rlRequests(t, qs.Requests, clk) })
		}},
	})
	t.Run("delaying", func(t *testing.T) {
		RunDelaying(t, DelayingQueues{Strings: withDefaultLimiter(qs.Strings), Requests: withDefaultLimiter(qs.Requests), Any: withDefaultLimiter(qs.Any)}, g)
	})
}

// withDefaultLimiter is a rate-limiting-queue constructor as RunDelaying
// takes one: over client-go's default controller limiter, which the
// delaying properties never consult (they call AddAfter, not
// AddRateLimited).
func withDefaultLimiter[T comparable](newQueue func(clock.WithTicker, workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T]) func(clock.WithTicker) workqueue.TypedDelayingInterface[T] {
	return func(clk clock.WithTicker) workqueue.TypedDelayingInterface[T] {
		return newQueue(clk, workqueue.DefaultTypedControllerRateLimiter[T]())
	}
}

// rlRequests drives the layer with struct items and client-go's default
// controller rate limiter, the way controller-runtime's reconcile loop
// does: AddRateLimited on error, Forget on success, AddAfter for
// RequeueAfter.
func rlRequests(t *testing.T, newQueue func(clock.WithTicker, workqueue.TypedRateLimiter[Request]) workqueue.TypedRateLimitingInterface[Request], clk *clocktesting.FakeClock) {
	q := newQueue(clk, workqueue.DefaultTypedControllerRateLimiter[Request]())
	defer q.ShutDown()
	a := req("ns", "a")
	q.AddRateLimited(a) // in 5ms
	q.AddRateLimited(a) // in 10ms: the earlier deadline stays
	if got := q.NumRequeues(req("ns", "a")); got != 2 {
		t.Errorf("NumRequeues after two AddRateLimited = %d, want 2", got)
	}
	synctest.Wait()
	if q.Len() != 0 {
		t.Fatal("a rate-limited item was queued before its delay")
	}
	step(clk, 5*time.Millisecond)
	if q.Len() != 1 {
		t.Fatalf("Len 5ms after AddRateLimited = %d, want 1", q.Len())
	}
	if got, _ := q.Get(); got != a {
		t.Fatalf("Get = %v, want %v", got, a)
	}
	q.Forget(a)
	if got := q.NumRequeues(a); got != 0 {
		t.Errorf("NumRequeues after Forget = %d, want 0", got)
	}
	q.AddAfter(a, time.Second) // RequeueAfter, while processing
	q.Done(a)
	// Let the layer's timer goroutine take the new deadline before the
	// fake clock moves: a Step between its reading the clock and its
	// setting the timer would set it a second past the new time, a race
	// of the harness (a real clock does not jump), seen in about one run
	// in twenty under -race.
	synctest.Wait()
	step(clk, time.Second)
	if q.Len() != 1 {
		t.Errorf("Len a second after AddAfter = %d, want 1", q.Len())
	}
}

type rlHarness struct {
	q       workqueue.TypedRateLimitingInterface[string]
	clk     *clocktesting.FakeClock
	limiter workqueue.TypedRateLimiter[string]
}

// retry does AddRateLimited(item) and checks that item becomes ready exactly
// want later, then takes it out again (Get, Done).
func (h *rlHarness) retry(t *testing.T, item string, want time.Duration) {
	t.Helper()
	h.q.AddRateLimited(item)
	synctest.Wait()
	if want > 0 {
		if n := h.q.Len(); n != 0 {
			t.Fatalf("%s: ready at once, want after %v", item, want)
		}
		step(h.clk, want-time.Nanosecond)
		if n := h.q.Len(); n != 0 {
			t.Fatalf("%s: ready a nanosecond before %v", item, want)
		}
		step(h.clk, time.Nanosecond)
	}
	if n := h.q.Len(); n != 1 {
		t.Fatalf("%s: Len() = %d after %v, want 1", item, n, want)
	}
	mustGet(t, h.q, item)
	h.q.Done(item)
}

func (h *rlHarness) mustRequeues(t *testing.T, item string, want int) {
	t.Helper()
	if got := h.q.NumRequeues(item); got != want {
		t.Fatalf("NumRequeues(%q) = %d, want %d", item, got, want)
	}
}

func rlExponential(t *testing.T, h *rlHarness) {
	for n := range 13 {
		h.retry(t, "a", min(time.Millisecond<<n, time.Second))
		h.mustRequeues(t, "a", n+1)
	}
	h.mustRequeues(t, "b", 0) // per item
	h.q.Forget("a")
	h.mustRequeues(t, "a", 0)
	h.retry(t, "a", time.Millisecond)
}

// rlExponentialHuge drives the failure count far past where base·2^n
// overflows int64 (n ≈ 43) and float64 (n > 1023): the delay must stay
// capped at the maximum.
func rlExponentialHuge(t *testing.T, h *rlHarness) {
	const failures = 1100
	for range failures {
		h.q.AddRateLimited("a") // waiting: the first, 1 ms deadline is kept
	}
	synctest.Wait()
	step(h.clk, time.Millisecond)
	mustLen(t, h.q, 1)
	mustGet(t, h.q, "a")
	h.q.Done("a")
	h.mustRequeues(t, "a", failures)
	h.retry(t, "a", 1000*time.Second)
	h.mustRequeues(t, "a", failures+1)
}

func rlFastSlow(t *testing.T, h *rlHarness) {
	for n, want := range []time.Duration{2 * time.Millisecond, 2 * time.Millisecond, 2 * time.Millisecond, 30 * time.Second, 30 * time.Second} {
		h.retry(t, "a", want)
		h.mustRequeues(t, "a", n+1)
	}
	h.q.Forget("a")
	h.retry(t, "a", 2*time.Millisecond)
}

func rlMaxOf(t *testing.T, h *rlHarness) {
	for n := range 15 {
		slow := time.Second
		if n < 2 {
			slow = 5 * time.Millisecond
		}
		h.retry(t, "a", max(min(time.Millisecond<<n, 10*time.Second), slow))
		h.mustRequeues(t, "a", n+1)
	}
	h.q.Forget("a") // forgets in every limiter
	h.mustRequeues(t, "a", 0)
	h.retry(t, "a", 5*time.Millisecond)
}

// rlBucket: 10 per second with a burst of 2. The bucket reads the bubble's
// time, which stands still while the test steps only the fake clock, so the
// reservations queue up 100 ms apart.
func rlBucket(t *testing.T, h *rlHarness) {
	h.retry(t, "a", 0)
	h.retry(t, "b", 0)
	h.retry(t, "c", 100*time.Millisecond)
	h.retry(t, "d", 200*time.Millisecond)
	h.mustRequeues(t, "c", 0) // the bucket tracks no items
}

func rlWithMaxWait(t *testing.T, h *rlHarness) {
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second} {
		h.retry(t, "a", want)
	}
	h.mustRequeues(t, "a", 6)
}

func rlDefaultController(t *testing.T, h *rlHarness) {
	for n := range 10 {
		h.retry(t, "a", 5*time.Millisecond<<n)
	}
	h.mustRequeues(t, "a", 10)
}

func rlDelegates(t *testing.T, h *rlHarness) {
	rec := h.limiter.(*recordingLimiter)
	rec.delay = 3 * time.Second
	h.retry(t, "a", 3*time.Second)
	rec.requeues = 7
	h.mustRequeues(t, "a", 7)
	h.q.Forget("a")
	want := []string{"When a", "NumRequeues a", "Forget a"}
	if got := rec.calls.Got(); !slices.Equal(got, want) {
		t.Fatalf("limiter calls = %q, want %q", got, want)
	}
}

func rlNothingAfterShutDown(t *testing.T, h *rlHarness) {
	h.q.AddRateLimited("waiting")
	synctest.Wait()
	h.q.ShutDown()
	h.q.AddRateLimited("late")
	step(h.clk, time.Hour)
	mustLen(t, h.q, 0)
	mustShutdownGet(t, h.q)
}

// recordingLimiter answers with fixed values and records every call, to
// check that the layer delegates exactly once per operation.
type recordingLimiter struct {
	calls    suite.Lines
	delay    time.Duration
	requeues int
}

func newRecordingLimiter() *recordingLimiter { return &recordingLimiter{} }

func (r *recordingLimiter) When(item string) time.Duration {
	r.calls.Log("When " + item)
	return r.delay
}

func (r *recordingLimiter) Forget(item string) { r.calls.Log("Forget " + item) }

func (r *recordingLimiter) NumRequeues(item string) int {
	r.calls.Log("NumRequeues " + item)
	return r.requeues
}

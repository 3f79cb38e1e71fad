package queuetest

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// NewRateLimitingQueue constructs a fresh, empty rate-limiting queue that
// reads time from clk and asks limiter for delays. It is called inside a
// testing/synctest bubble.
type NewRateLimitingQueue func(t *testing.T, clk clock.WithTicker, limiter workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string]

// RunRateLimitingQueue checks the rate-limiting layer of SPEC.md with every
// client-go limiter: for each AddRateLimited the item must become ready
// exactly when the limiter says — not a nanosecond before — and NumRequeues
// and Forget must be the limiter's. Runs in synctest bubbles with a fake
// clock, like RunDelayingQueue.
func RunRateLimitingQueue(t *testing.T, newQueue NewRateLimitingQueue, opts ...Option) {
	c := newConfig(opts)
	props := []struct {
		name    string
		limiter func() workqueue.TypedRateLimiter[string]
		run     func(*testing.T, *rlHarness)
	}{
		{"Exponential", func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
		}, rlExponential},
		{"ExponentialHugeFailureCount", func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 1000*time.Second)
		}, rlExponentialHuge},
		{"FastSlow", func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedItemFastSlowRateLimiter[string](2*time.Millisecond, 30*time.Second, 3)
		}, rlFastSlow},
		{"MaxOf", func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedMaxOfRateLimiter(
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Second),
				workqueue.NewTypedItemFastSlowRateLimiter[string](5*time.Millisecond, time.Second, 2))
		}, rlMaxOf},
		{"Bucket", func() workqueue.TypedRateLimiter[string] {
			return &workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), 2)}
		}, rlBucket},
		{"WithMaxWait", func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedWithMaxWaitRateLimiter(
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Hour), 10*time.Second)
		}, rlWithMaxWait},
		{"DefaultController", workqueue.DefaultTypedControllerRateLimiter[string], rlDefaultController},
		{"DelegatesToLimiter", func() workqueue.TypedRateLimiter[string] { return newRecordingLimiter() }, rlDelegates},
		{"NothingAfterShutDown", func() workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
		}, rlNothingAfterShutDown},
	}
	for _, p := range props {
		t.Run(p.name, func(t *testing.T) {
			c.skipKnown(t, p.name)
			inBubble(t, c, func(t *testing.T, clk *clocktesting.FakeClock) {
				limiter := p.limiter()
				q := newQueue(t, clk, limiter)
				if q == nil {
					t.Fatal("newQueue returned nil")
				}
				defer q.ShutDown()
				p.run(t, &rlHarness{q: q, clk: clk, limiter: limiter})
			})
		})
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
	if got := rec.log(); !slices.Equal(got, want) {
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
	mu       sync.Mutex
	calls    []string
	delay    time.Duration
	requeues int
}

func newRecordingLimiter() *recordingLimiter { return &recordingLimiter{} }

func (r *recordingLimiter) record(call string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call)
}

func (r *recordingLimiter) log() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

func (r *recordingLimiter) When(item string) time.Duration {
	r.record("When " + item)
	return r.delay
}

func (r *recordingLimiter) Forget(item string) { r.record("Forget " + item) }

func (r *recordingLimiter) NumRequeues(item string) int {
	r.record("NumRequeues " + item)
	return r.requeues
}

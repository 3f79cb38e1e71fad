package workqtest

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/queuelab/queuelab/internal/suite"
)

// DelayingQueues are the constructors RunDelaying checks, one per item type
// as in Queues. Each builds a fresh, empty delaying queue that reads time
// from clk; the delaying properties call it inside a testing/synctest
// bubble with a fake clock, the workqueue contract with the real clock.
type DelayingQueues struct {
	// Strings builds the queue the delaying properties and most workqueue
	// properties use.
	Strings func(clk clock.WithTicker) workqueue.TypedDelayingInterface[string]
	// Requests and Any build the queues of Queues' Requests and Any.
	Requests func(clk clock.WithTicker) workqueue.TypedDelayingInterface[Request]
	Any      func(clk clock.WithTicker) workqueue.TypedDelayingInterface[any]
}

// RunDelaying checks the delaying layer's contract (AddAfter; see the
// package doc) on queues made by qs.Strings, then, in the subtest
// "workqueue", Run's contract under g on the same constructors, since a
// delaying queue is a work queue too. Every delaying property runs in a
// testing/synctest bubble with a fake clock: the test steps the clock and
// waits for the bubble to settle, so "not ready yet" is asserted
// deterministically and nothing sleeps. The bubble also fails a property
// whose queue leaves a goroutine behind after ShutDown.
func RunDelaying(t *testing.T, qs DelayingQueues, g Guarantees) {
	t.Helper()
	run := func(p func(*testing.T, workqueue.TypedDelayingInterface[string], *clocktesting.FakeClock)) func(*testing.T) {
		return func(t *testing.T) {
			inBubble(t, func(t *testing.T, clk *clocktesting.FakeClock) {
				q := qs.Strings(clk)
				if q == nil {
					t.Fatal("newQueue returned nil")
				}
				defer q.ShutDown()
				p(t, q, clk)
			})
		}
	}
	suite.Run(t, 0, []suite.Property{
		{Name: "non-positive-delay-adds-now", Run: run(dqNonPositive)},
		{Name: "waits-for-the-delay", Run: run(dqWaits)},
		{Name: "ready-in-deadline-order", Run: run(dqDeadlineOrder)},
		{Name: "earlier-deadline-wins", Run: run(dqEarlierWins)},
		{Name: "waiting-item-dedups-with-queued", Run: run(dqDedupWithQueued)},
		{Name: "nothing-after-shutdown", Run: run(dqNothingAfterShutDown)},
		{Name: "concurrent-add-after", Run: run(dqConcurrent)},
	})
	t.Run("workqueue", func(t *testing.T) {
		Run(t, Queues{Strings: onRealClock(qs.Strings), Requests: onRealClock(qs.Requests), Any: onRealClock(qs.Any)}, g)
	})
}

// onRealClock is a delaying-queue constructor as Run takes one.
func onRealClock[T comparable](newQueue func(clock.WithTicker) workqueue.TypedDelayingInterface[T]) func() workqueue.TypedInterface[T] {
	return func() workqueue.TypedInterface[T] { return newQueue(clock.RealClock{}) }
}

// inBubble runs body in a synctest bubble with a fake clock made inside it.
func inBubble(t *testing.T, body func(*testing.T, *clocktesting.FakeClock)) {
	synctest.Test(t, func(t *testing.T) {
		body(t, clocktesting.NewFakeClock(time.Now()))
	})
}

// step advances the fake clock and lets the bubble settle.
func step(clk *clocktesting.FakeClock, d time.Duration) {
	clk.Step(d)
	synctest.Wait()
}

// mustSettleLen waits for the bubble to settle, then checks Len.
func mustSettleLen(t *testing.T, q workqueue.TypedInterface[string], want int) {
	t.Helper()
	synctest.Wait()
	mustLen(t, q, want)
}

func dqNonPositive(t *testing.T, q workqueue.TypedDelayingInterface[string], _ *clocktesting.FakeClock) {
	q.AddAfter("zero", 0)
	q.AddAfter("negative", -time.Hour)
	mustLen(t, q, 2) // at once, without the clock moving
}

func dqWaits(t *testing.T, q workqueue.TypedDelayingInterface[string], clk *clocktesting.FakeClock) {
	q.AddAfter("a", time.Second)
	mustSettleLen(t, q, 0)
	step(clk, time.Second-time.Nanosecond)
	mustLen(t, q, 0)
	step(clk, time.Nanosecond)
	mustLen(t, q, 1)
	mustGet(t, q, "a")
}

func dqDeadlineOrder(t *testing.T, q workqueue.TypedDelayingInterface[string], clk *clocktesting.FakeClock) {
	q.AddAfter("c", 3*time.Second)
	q.AddAfter("a", time.Second)
	q.AddAfter("b", 2*time.Second)
	synctest.Wait()
	for _, want := range []string{"a", "b", "c"} {
		step(clk, time.Second)
		mustLen(t, q, 1)
		mustGet(t, q, want)
		q.Done(want)
	}
}

func dqEarlierWins(t *testing.T, q workqueue.TypedDelayingInterface[string], clk *clocktesting.FakeClock) {
	q.AddAfter("sooner", 2*time.Second)
	q.AddAfter("sooner", time.Second) // moves the deadline earlier
	q.AddAfter("later", time.Second)
	q.AddAfter("later", 5*time.Second) // keeps the earlier deadline
	synctest.Wait()
	step(clk, time.Second)
	mustLen(t, q, 2)
	for range 2 {
		item, _ := q.Get()
		q.Done(item)
	}
	step(clk, 4*time.Second) // past both later deadlines: neither comes back
	mustLen(t, q, 0)
}

func dqDedupWithQueued(t *testing.T, q workqueue.TypedDelayingInterface[string], clk *clocktesting.FakeClock) {
	q.AddAfter("a", time.Second)
	q.Add("a")
	mustSettleLen(t, q, 1)
	step(clk, time.Second) // the delayed Add finds a still queued
	mustLen(t, q, 1)
	mustGet(t, q, "a")
}

func dqNothingAfterShutDown(t *testing.T, q workqueue.TypedDelayingInterface[string], clk *clocktesting.FakeClock) {
	q.AddAfter("waiting", time.Second)
	synctest.Wait()
	q.ShutDown()
	q.AddAfter("now", 0)
	q.AddAfter("later", time.Second)
	step(clk, 2*time.Second)
	mustLen(t, q, 0)
	mustShutdownGet(t, q)
}

func dqConcurrent(t *testing.T, q workqueue.TypedDelayingInterface[string], clk *clocktesting.FakeClock) {
	const adders, each = 8, 50
	var wg sync.WaitGroup
	for a := range adders {
		wg.Go(func() {
			for i := range each {
				q.AddAfter(fmt.Sprintf("item-%d-%d", a, i), time.Duration(1+i)*time.Millisecond)
			}
		})
	}
	wg.Wait()
	mustSettleLen(t, q, 0)
	step(clk, each*time.Millisecond)
	mustLen(t, q, adders*each)
}

package queuetest_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/registry"
	"github.com/queuelab/queuelab/queues/workq"
)

// request has the shape of controller-runtime's reconcile.Request, the T its
// controllers instantiate workqueue.TypedRateLimitingInterface with: a
// struct of two strings, compared by value.
type request struct{ types.NamespacedName }

func req(ns, name string) request {
	return request{types.NamespacedName{Namespace: ns, Name: name}}
}

// TestAuditWorkQueueStructItems checks, for every registered queue
// instantiated with a struct item type, the per-item rules controllers rely
// on: equal structs (built separately) are one item, an Add during
// processing re-queues after Done, Done of an idle item is ignored, and
// nothing is lost or handed out twice at once under concurrent workers.
func TestAuditWorkQueueStructItems(t *testing.T) {
	for _, e := range workq.Impls[request]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			watchdog.Run(t, watchdog.DefaultTimeout, func() {
				q := e.New()
				defer q.ShutDown()
				q.Add(req("ns", "a"))
				q.Add(req("ns", "b"))
				q.Add(req("ns", "a")) // a different value, equal to the first
				if n := q.Len(); n != 2 {
					t.Fatalf("Len after adding a, b, a = %d, want 2", n)
				}
				first, _ := q.Get()
				if e.Guarantees.Order == registry.OrderFIFO && first != req("ns", "a") {
					t.Errorf("first Get = %v, want ns/a (FIFO)", first)
				}
				q.Add(req(first.Namespace, first.Name)) // while processing
				if n := q.Len(); n != 1 {
					t.Errorf("Len after re-adding the item being processed = %d, want 1", n)
				}
				q.Done(first)
				if n := q.Len(); n != 2 {
					t.Errorf("Len after Done of an item re-added while processing = %d, want 2", n)
				}
				second, _ := q.Get()
				third, _ := q.Get()
				if second == third || (second != first && third != first) {
					t.Errorf("after Done: got %v and %v, want the other item and %v once each", second, third, first)
				}
				q.Done(second)
				q.Done(third)
				q.Done(third) // idle now: ignored
				if n := q.Len(); n != 0 {
					t.Errorf("Len after everything is Done = %d, want 0", n)
				}
			})
		})
	}
}

// TestAuditWorkQueueStructItemsConcurrent: several workers and producers over
// a few struct items; no item is ever processed by two workers at once, and
// every Add is followed by a Get that starts after it (nothing is lost).
func TestAuditWorkQueueStructItemsConcurrent(t *testing.T) {
	const items, producers, workers, adds = 8, 3, 4, 400
	for _, e := range workq.Impls[request]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			watchdog.Run(t, watchdog.DefaultTimeout, func() {
				q := e.New()
				var busy [items]atomic.Int32
				var added, started [items]atomic.Int64 // sequence of last Add / last Get
				var seq atomic.Int64
				index := func(r request) int { return int(r.Name[0] - 'a') }

				var wg sync.WaitGroup
				for range workers {
					wg.Go(func() {
						for {
							r, shutdown := q.Get()
							if shutdown {
								return
							}
							i := index(r)
							if busy[i].Add(1) != 1 {
								t.Errorf("%v handed to two workers at once", r)
							}
							started[i].Store(seq.Add(1))
							busy[i].Add(-1)
							q.Done(r)
						}
					})
				}
				var pwg sync.WaitGroup
				for p := range producers {
					pwg.Go(func() {
						for n := range adds {
							i := (n*7 + p) % items
							added[i].Store(seq.Add(1))
							q.Add(req("ns", string(rune('a'+i))))
						}
					})
				}
				pwg.Wait()
				q.ShutDownWithDrain()
				wg.Wait()
				for i := range items {
					if started[i].Load() < added[i].Load() {
						t.Errorf("item %c: last Add (seq %d) was never followed by a Get (last at %d)",
							'a'+i, added[i].Load(), started[i].Load())
					}
				}
			})
		})
	}
}

// TestAuditWorkQueueAnyItems: workqueue.Interface is TypedInterface[any];
// items of different dynamic types are different items, equal ones one.
func TestAuditWorkQueueAnyItems(t *testing.T) {
	for _, e := range workq.Impls[any]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			q := e.New()
			defer q.ShutDown()
			for _, it := range []any{"a", 1, int64(1), req("ns", "a"), "a", 1, req("ns", "a")} {
				q.Add(it)
			}
			if n := q.Len(); n != 4 {
				t.Errorf(`Len after adding "a", 1, int64(1), ns/a and repeats = %d, want 4`, n)
			}
		})
	}
}

// TestAuditRateLimitingStructItems drives the rate-limiting layer over every
// queue with struct items and client-go's default controller rate limiter,
// the way controller-runtime's reconcile loop does: AddRateLimited on error,
// Forget on success, AddAfter for RequeueAfter. It runs in a synctest
// bubble, so the layer's timer runs on the bubble's fake time.
func TestAuditRateLimitingStructItems(t *testing.T) {
	for _, e := range workq.Impls[request]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			watchdog.Run(t, watchdog.DefaultTimeout, func() {
				synctest.Test(t, func(t *testing.T) {
					q, err := workq.NewRateLimiting(e.New(), workqueue.DefaultTypedControllerRateLimiter[request]())
					if err != nil {
						t.Fatal(err)
					}
					var _ workqueue.TypedRateLimitingInterface[request] = q
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
					time.Sleep(5 * time.Millisecond)
					synctest.Wait()
					if q.Len() != 1 {
						t.Fatalf("Len 5ms after AddRateLimited = %d, want 1", q.Len())
					}
					got, _ := q.Get()
					if got != a {
						t.Fatalf("Get = %v, want %v", got, a)
					}
					q.Forget(a)
					if got := q.NumRequeues(a); got != 0 {
						t.Errorf("NumRequeues after Forget = %d, want 0", got)
					}
					q.AddAfter(a, time.Second) // RequeueAfter, while processing
					q.Done(a)
					time.Sleep(time.Second)
					synctest.Wait()
					if q.Len() != 1 {
						t.Errorf("Len a second after AddAfter = %d, want 1", q.Len())
					}
				})
			})
		})
	}
}

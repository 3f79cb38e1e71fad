package workq_test

import (
	"testing"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/queues/registry"
	"github.com/queuelab/queuelab/queues/workq"
	"github.com/queuelab/queuelab/queues/workq/workqtest"
)

// newQueue is a registry constructor for items T, as the suites take it.
func newQueue[T comparable](name string) workqtest.NewQueue[T] {
	e := registry.Must(workq.Impls[T]().Lookup(name))
	return func(*testing.T) workqueue.TypedInterface[T] { return e.New() }
}

// TestWorkQueue runs the workqueue suite over every registered
// implementation, client-go's included.
func TestWorkQueue(t *testing.T) {
	for _, e := range workq.Impls[string]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			workqtest.RunWorkQueue(t, workqtest.Queues{
				Strings:  newQueue[string](e.Name),
				Requests: newQueue[workqtest.Request](e.Name),
				Any:      newQueue[any](e.Name),
			}, e.Guarantees)
		})
	}
}

// layered builds this package's Delaying layer over a fresh base queue
// made by base.
func layered[T comparable](t *testing.T, base workqtest.NewQueue[T], clk clock.WithTicker) workqueue.TypedDelayingInterface[T] {
	t.Helper()
	q, err := workq.NewDelaying(base(t), workq.LayerOptions{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// realClock lifts a delaying-queue constructor to the workqueue suite's.
func realClock[T comparable](newQ func(*testing.T, clock.WithTicker) workqueue.TypedDelayingInterface[T]) workqtest.NewQueue[T] {
	return func(t *testing.T) workqueue.TypedInterface[T] { return newQ(t, clock.RealClock{}) }
}

func clientGoDelaying[T comparable](_ *testing.T, clk clock.WithTicker) workqueue.TypedDelayingInterface[T] {
	return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[T]{Clock: clk})
}

// TestDelayingQueue runs the delaying and workqueue suites over client-go's
// delaying queue (the reference) and over this package's Delaying layer on
// every registered base queue.
func TestDelayingQueue(t *testing.T) {
	baseline := registry.Must(workq.Impls[string]().Lookup(registry.Baseline))
	t.Run("layer=clientgo/impl=clientgo", func(t *testing.T) {
		workqtest.RunDelayingQueue(t, clientGoDelaying[string])
		workqtest.RunWorkQueue(t, workqtest.Queues{
			Strings:  realClock(clientGoDelaying[string]),
			Requests: realClock(clientGoDelaying[workqtest.Request]),
			Any:      realClock(clientGoDelaying[any]),
		}, baseline.Guarantees)
	})
	for _, e := range workq.Impls[string]() {
		t.Run("layer=queuelab/impl="+e.Name, func(t *testing.T) {
			delaying := func(t *testing.T, clk clock.WithTicker) workqueue.TypedDelayingInterface[string] {
				return layered(t, newQueue[string](e.Name), clk)
			}
			workqtest.RunDelayingQueue(t, delaying)
			workqtest.RunWorkQueue(t, workqtest.Queues{
				Strings: realClock(delaying),
				Requests: realClock(func(t *testing.T, clk clock.WithTicker) workqueue.TypedDelayingInterface[workqtest.Request] {
					return layered(t, newQueue[workqtest.Request](e.Name), clk)
				}),
				Any: realClock(func(t *testing.T, clk clock.WithTicker) workqueue.TypedDelayingInterface[any] {
					return layered(t, newQueue[any](e.Name), clk)
				}),
			}, e.Guarantees)
		})
	}
}

func clientGoRateLimiting[T comparable](_ *testing.T, clk clock.WithTicker, l workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(l, workqueue.TypedRateLimitingQueueConfig[T]{Clock: clk})
}

// rateLimiting builds this package's RateLimiting layer over the
// registered queue name.
func rateLimiting[T comparable](name string) workqtest.NewRateLimitingQueue[T] {
	base := newQueue[T](name)
	return func(t *testing.T, clk clock.WithTicker, l workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
		q, err := workq.NewRateLimiting(base(t), l, workq.LayerOptions{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
}

// TestRateLimitingQueue runs the rate-limiting suite over client-go's
// rate-limiting queue (the reference) and over this package's RateLimiting
// layer on every registered base queue.
func TestRateLimitingQueue(t *testing.T) {
	t.Run("layer=clientgo/impl=clientgo", func(t *testing.T) {
		workqtest.RunRateLimitingQueue(t, workqtest.RateLimitingQueues{
			Strings:  clientGoRateLimiting[string],
			Requests: clientGoRateLimiting[workqtest.Request],
		})
	})
	for _, e := range workq.Impls[string]() {
		t.Run("layer=queuelab/impl="+e.Name, func(t *testing.T) {
			workqtest.RunRateLimitingQueue(t, workqtest.RateLimitingQueues{
				Strings:  rateLimiting[string](e.Name),
				Requests: rateLimiting[workqtest.Request](e.Name),
			})
		})
	}
}

// FuzzWorkQueueDifferential explores op sequences beyond the suite's fixed
// seeds: go test -fuzz FuzzWorkQueueDifferential ./queues/workq
func FuzzWorkQueueDifferential(f *testing.F) {
	f.Add(uint64(1), uint16(300))
	f.Add(uint64(42), uint16(1000))
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		for _, e := range workq.Impls[string]() {
			t.Run("impl="+e.Name, func(t *testing.T) {
				workqtest.DiffWorkQueue(t, newQueue[string](e.Name), e.Guarantees, seed, int(steps))
			})
		}
	})
}

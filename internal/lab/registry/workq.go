package registry

import (
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/queues/workq"
	"github.com/queuelab/queuelab/queues/workq/workqtest"
)

// WorkQueues lists the work queues for items T, client-go's first: the
// drop-ins for workqueue.NewTyped, each built with default workq.Options.
func WorkQueues[T comparable]() List[func() workqueue.TypedInterface[T], workqtest.Guarantees] {
	return List[func() workqueue.TypedInterface[T], workqtest.Guarantees]{
		{
			Name:       Baseline,
			Doc:        "client-go workqueue.NewTyped: one mutex and cond, dirty and processing sets, slice queue",
			New:        func() workqueue.TypedInterface[T] { return workqueue.NewTyped[T]() },
			Guarantees: workqtest.Guarantees{Order: guarantee.OrderFIFO},
		},
		{
			Name:       "mutex",
			Doc:        "one mutex, one state record per item in a free-listed slab, ready list linked through the records",
			New:        func() workqueue.TypedInterface[T] { return Must(workq.NewMutex[T](workq.Options{})) },
			Guarantees: workqtest.Guarantees{Order: guarantee.OrderFIFO},
		},
		{
			Name:       "sharded",
			Doc:        "items hashed over 4×GOMAXPROCS shards, each a mutex plus the mutex entry's table; parked Gets woken through a gate",
			New:        func() workqueue.TypedInterface[T] { return Must(workq.NewSharded[T](workq.Options{})) },
			Guarantees: workqtest.Guarantees{Order: guarantee.OrderPerShard},
		},
		{
			Name:       "ring",
			Doc:        "lock-free MPMC queue of rings for ready items, per-item state in lock-striped tables, Get lock-free",
			New:        func() workqueue.TypedInterface[T] { return Must(workq.NewRing[T](workq.Options{})) },
			Guarantees: workqtest.Guarantees{Order: guarantee.OrderFIFO},
		},
	}
}

// DelayingQueues lists delaying queues for items T on a given clock:
// client-go's (NewTypedDelayingQueueWithConfig over its own queue) first,
// then workq.NewDelaying over every entry of WorkQueues, named
// "layer-<base>" and declaring its base's guarantees (the layer keeps the
// base's order and drain).
func DelayingQueues[T comparable]() List[func(clock.WithTicker) workqueue.TypedDelayingInterface[T], workqtest.Guarantees] {
	return layers("client-go workqueue.NewTypedDelayingQueueWithConfig over its own queue: a goroutine fed by a channel, a heap, a 10 s heartbeat",
		func(clk clock.WithTicker) workqueue.TypedDelayingInterface[T] {
			return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[T]{Clock: clk})
		},
		"workq.NewDelaying",
		func(base func() workqueue.TypedInterface[T]) func(clock.WithTicker) workqueue.TypedDelayingInterface[T] {
			return func(clk clock.WithTicker) workqueue.TypedDelayingInterface[T] {
				return Must(workq.NewDelaying(base(), workq.LayerOptions{Clock: clk}))
			}
		})
}

// RateLimitingQueues lists rate-limiting queues for items T on a given
// clock and limiter, as DelayingQueues lists delaying ones: client-go's
// NewTypedRateLimitingQueueWithConfig first, then workq.NewRateLimiting
// over every entry of WorkQueues as "layer-<base>".
func RateLimitingQueues[T comparable]() List[func(clock.WithTicker, workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T], workqtest.Guarantees] {
	return layers("client-go workqueue.NewTypedRateLimitingQueueWithConfig: its delaying queue asking the limiter",
		func(clk clock.WithTicker, l workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(l, workqueue.TypedRateLimitingQueueConfig[T]{Clock: clk})
		},
		"workq.NewRateLimiting",
		func(base func() workqueue.TypedInterface[T]) func(clock.WithTicker, workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
			return func(clk clock.WithTicker, l workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
				return Must(workq.NewRateLimiting(base(), l, workq.LayerOptions{Clock: clk}))
			}
		})
}

// layers is a layer's list: client-go's own layer (clientGo, described by
// doc) under the baseline's name and guarantees, then the workq layer
// (named layer, built by over) over every base queue.
func layers[T comparable, N any](doc string, clientGo N, layer string, over func(base func() workqueue.TypedInterface[T]) N) List[N, workqtest.Guarantees] {
	bases := WorkQueues[T]()
	out := List[N, workqtest.Guarantees]{{Name: Baseline, Doc: doc, New: clientGo, Guarantees: Must(bases.Lookup(Baseline)).Guarantees}}
	for _, b := range bases {
		out = append(out, Entry[N, workqtest.Guarantees]{
			Name:       "layer-" + b.Name,
			Doc:        layer + " over " + b.Name + " (" + b.Doc + ")",
			New:        over(b.New),
			Guarantees: b.Guarantees,
		})
	}
	return out
}

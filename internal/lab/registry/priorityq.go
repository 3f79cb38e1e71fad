package registry

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/queues/priorityq"
	"github.com/queuelab/queuelab/queues/priorityq/priorityqtest"
)

// PriorityBaseline is the priority-queue family's reference: controller-runtime's
// own priority queue, the default queue of every controller-runtime
// controller. (The other families' Baseline is client-go's, which has no
// priority queue.)
const PriorityBaseline = "controllerruntime"

// PriorityQueues returns the priority-queue family for item type T,
// controller-runtime's queue first. Every constructor takes the library's
// priorityq.Options, so a benchmark or scenario configures each entry the
// same way; controller-runtime's refuses the options it cannot honour.
func PriorityQueues[T comparable]() List[func(priorityq.Options[T]) (priorityq.PriorityQueue[T], error), priorityqtest.Guarantees] {
	return List[func(priorityq.Options[T]) (priorityq.PriorityQueue[T], error), priorityqtest.Guarantees]{
		{
			Name:       PriorityBaseline,
			Doc:        "controller-runtime priorityqueue.New: add buffer, B-trees of ready and waiting items under one lock, goroutines handing items to Gets over a channel",
			New:        newControllerRuntime[T],
			Guarantees: priorityqtest.Guarantees{Order: guarantee.OrderFIFO, KeepsPosition: true},
		},
		{
			Name:       "mutex",
			Doc:        "one mutex; per-item records in a slab, one intrusive FIFO list per priority, a heap and one timer for delays; 0 allocations",
			New:        priorityQueue(priorityq.NewMutex[T]),
			Guarantees: priorityqtest.Guarantees{Order: guarantee.OrderFIFO, KeepsPosition: true, DrainOnShutdown: true, GetYield: true},
		},
		{
			Name:       "sharded",
			Doc:        "items hashed over 4×GOMAXPROCS mutex shards; Get takes the highest priority any shard publishes; FIFO per shard within a priority",
			New:        priorityQueue(priorityq.NewSharded[T]),
			Guarantees: priorityqtest.Guarantees{Order: guarantee.OrderPerShard, KeepsPosition: true, DrainOnShutdown: true, GetYield: true},
		},
		{
			Name:       "lockfree",
			Doc:        "per-item state word by CAS in a concurrent map, one lock-free MPMC queue per priority, delays behind a lock off the hot path",
			New:        priorityQueue(priorityq.NewLockFree[T]),
			Guarantees: priorityqtest.Guarantees{Order: guarantee.OrderFIFO, DrainOnShutdown: true, GetYield: true},
		},
	}
}

// priorityQueue turns a variant's typed constructor into the family's
// constructor type, returning a nil interface (not a nil pointer in one)
// on error.
func priorityQueue[T comparable, Q priorityq.PriorityQueue[T]](newQ func(priorityq.Options[T]) (Q, error)) func(priorityq.Options[T]) (priorityq.PriorityQueue[T], error) {
	return func(o priorityq.Options[T]) (priorityq.PriorityQueue[T], error) {
		q, err := newQ(o)
		if err != nil {
			return nil, err
		}
		return q, nil
	}
}

// newControllerRuntime builds controller-runtime's queue from the library's
// Options, so the lab compares it configured as the others are. With no
// MetricsProvider it keeps controller-runtime's internal one, the provider
// its controllers use. It refuses what controller-runtime's queue cannot
// honour rather than ignore it.
func newControllerRuntime[T comparable](o priorityq.Options[T]) (priorityq.PriorityQueue[T], error) {
	if o.Shards != 0 {
		return nil, fmt.Errorf("priorityq: %s does not take Shards (got %d)", PriorityBaseline, o.Shards)
	}
	if o.GetYield != priorityq.GetYieldDefault {
		return nil, fmt.Errorf("priorityq: %s has no GetYield policy: its Get blocks on a channel its own goroutine feeds", PriorityBaseline)
	}
	if o.DrainOnShutdown {
		return nil, fmt.Errorf("priorityq: %s cannot drain on shutdown (DrainOnShutdown)", PriorityBaseline)
	}
	return priorityqueue.New(o.Name, func(co *priorityqueue.Opts[T]) {
		if o.RateLimiter != nil {
			co.RateLimiter = o.RateLimiter
		}
		if o.MetricsProvider != nil {
			co.MetricProvider = o.MetricsProvider
		}
	}), nil
}

package priorityq

import (
	"fmt"

	"github.com/queuelab/queuelab/guarantee"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/queuelab/queuelab/queues/registry"
)

// Baseline is this family's reference: controller-runtime's own priority
// queue, the default queue of every controller-runtime controller. (The
// other families' baseline, registry.Baseline, is client-go's, which has no
// priority queue.)
const Baseline = "controllerruntime"

// Guarantees declares what a priority queue promises beyond the
// PriorityQueue contract every entry keeps (dedup, max priority, min delay,
// priority order, re-queue after Done, never two workers on one item).
type Guarantees struct {
	// Order is the hand-out order among ready items of equal priority.
	Order guarantee.Order
	// KeepsPosition: an item added while processed, and a delayed item made
	// ready by an add without delay, keep the place of their earlier add
	// among their priority, as controller-runtime orders them; without it
	// they go to the tail.
	KeepsPosition bool
	// DrainOnShutdown: the queue honours Options.DrainOnShutdown (after
	// ShutDown, Get keeps handing out the ready items, and
	// ShutDownWithDrain waits until they are handed out and Done, as
	// client-go's workqueue does). Without the option every entry keeps
	// controller-runtime's contract: Get reports shutdown at once.
	// controller-runtime's queue has no such mode and refuses the option.
	// [ext]
	DrainOnShutdown bool
}

// New constructs a fresh, empty priority queue.
type New[T comparable] func(Options[T]) (PriorityQueue[T], error)

// Entry is one registered implementation.
type Entry[T comparable] = registry.Entry[New[T], Guarantees]

// Impls returns the priority-queue family's registry for item type T,
// controller-runtime's queue first.
func Impls[T comparable]() registry.List[New[T], Guarantees] {
	return registry.List[New[T], Guarantees]{
		{
			Name:       Baseline,
			Doc:        "controller-runtime priorityqueue.New: add buffer, B-trees of ready and waiting items under one lock, goroutines handing items to Gets over a channel",
			New:        newControllerRuntime[T],
			Guarantees: Guarantees{Order: guarantee.OrderFIFO, KeepsPosition: true},
		},
		{
			Name:       "mutex",
			Doc:        "one mutex; per-item records in a slab, one intrusive FIFO list per priority, a heap and one timer for delays; 0 allocations",
			New:        generalize(NewMutex[T]),
			Guarantees: Guarantees{Order: guarantee.OrderFIFO, KeepsPosition: true, DrainOnShutdown: true},
		},
		{
			Name:       "sharded",
			Doc:        "items hashed over 4×GOMAXPROCS mutex shards; Get takes the highest priority any shard publishes; FIFO per shard within a priority",
			New:        generalize(NewSharded[T]),
			Guarantees: Guarantees{Order: guarantee.OrderPerShard, KeepsPosition: true, DrainOnShutdown: true},
		},
		{
			Name:       "lockfree",
			Doc:        "per-item state word by CAS in a concurrent map, one lock-free MPMC queue per priority, delays behind a lock off the hot path",
			New:        generalize(NewLockFree[T]),
			Guarantees: Guarantees{Order: guarantee.OrderFIFO, DrainOnShutdown: true},
		},
	}
}

// generalize turns a variant's constructor into the registry's type.
func generalize[T comparable, Q PriorityQueue[T]](newQ func(Options[T]) (Q, error)) New[T] {
	return func(o Options[T]) (PriorityQueue[T], error) {
		q, err := newQ(o)
		if err != nil {
			return nil, err
		}
		return q, nil
	}
}

// newControllerRuntime builds controller-runtime's queue from Options. With
// no MetricsProvider it keeps controller-runtime's internal one, the
// provider its controllers use.
func newControllerRuntime[T comparable](o Options[T]) (PriorityQueue[T], error) {
	if o.Shards != 0 {
		return nil, fmt.Errorf("priorityq: %s does not take Shards (got %d)", Baseline, o.Shards)
	}
	if o.GetYield != GetYieldDefault {
		return nil, fmt.Errorf("priorityq: %s has no GetYield policy: its Get blocks on a channel its own goroutine feeds", Baseline)
	}
	if o.DrainOnShutdown {
		return nil, fmt.Errorf("priorityq: %s cannot drain on shutdown (DrainOnShutdown)", Baseline)
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

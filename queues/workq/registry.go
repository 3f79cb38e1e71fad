package workq

import (
	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/queuelab/queuelab/queues/registry"
)

// Guarantees declares what a workqueue implementation promises beyond the
// workqueue.TypedInterface contract every entry keeps.
type Guarantees struct {
	// Order is the hand-out order across different items.
	Order guarantee.Order
	// DrainsQueued: ShutDownWithDrain waits until nothing is queued as well
	// as nothing processing. client-go's returns once nothing is processing,
	// even with items still queued (kubernetes/kubernetes#141079), so its
	// entry leaves this false and the suites skip the drain properties that
	// need it.
	DrainsQueued bool
}

// New constructs a fresh, empty work queue.
type New[T comparable] func() workqueue.TypedInterface[T]

// Entry is one registered implementation.
type Entry[T comparable] = registry.Entry[New[T], Guarantees]

// Impls returns the workqueue family's registry for item type T, client-go's
// queue first.
func Impls[T comparable]() registry.List[New[T], Guarantees] {
	return registry.List[New[T], Guarantees]{
		{
			Name:       registry.Baseline,
			Doc:        "client-go workqueue.NewTyped: one mutex and cond, dirty and processing sets, slice queue",
			New:        func() workqueue.TypedInterface[T] { return workqueue.NewTyped[T]() },
			Guarantees: Guarantees{Order: guarantee.OrderFIFO},
		},
		{
			Name:       "mutex",
			Doc:        "one mutex, one state record per item in a free-listed slab, ready list linked through the records",
			New:        func() workqueue.TypedInterface[T] { return registry.Must(NewMutex[T](Options{})) },
			Guarantees: Guarantees{Order: guarantee.OrderFIFO, DrainsQueued: true},
		},
		{
			Name:       "sharded",
			Doc:        "items hashed over 4×GOMAXPROCS shards, each a mutex plus the mutex entry's table; parked Gets woken through a gate",
			New:        func() workqueue.TypedInterface[T] { return registry.Must(NewSharded[T](Options{})) },
			Guarantees: Guarantees{Order: guarantee.OrderPerShard, DrainsQueued: true},
		},
		{
			Name:       "ring",
			Doc:        "lock-free MPMC queue of rings for ready items, per-item state in lock-striped tables, Get lock-free",
			New:        func() workqueue.TypedInterface[T] { return registry.Must(NewRing[T](Options{})) },
			Guarantees: Guarantees{Order: guarantee.OrderFIFO, DrainsQueued: true},
		},
	}
}

package workq

import (
	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/internal/impl"
)

// Guarantees declares what a workqueue implementation promises beyond the
// workqueue.TypedInterface contract every entry keeps.
type Guarantees struct {
	// Order is the hand-out order across different items.
	Order impl.Order
}

// New constructs a fresh, empty work queue.
type New[T comparable] func() workqueue.TypedInterface[T]

// Impls returns the workqueue family's registry for item type T, client-go's
// queue first.
func Impls[T comparable]() impl.List[New[T], Guarantees] {
	return impl.List[New[T], Guarantees]{
		{
			Name:       impl.Baseline,
			Doc:        "client-go workqueue.NewTyped: one mutex and cond, dirty and processing sets, slice queue",
			New:        func() workqueue.TypedInterface[T] { return workqueue.NewTyped[T]() },
			Guarantees: Guarantees{Order: impl.OrderFIFO},
		},
		{
			Name:       "mutex",
			Doc:        "one mutex, one state record per item in a free-listed slab, ring-buffer deque of slab indices",
			New:        func() workqueue.TypedInterface[T] { return NewMutex[T]() },
			Guarantees: Guarantees{Order: impl.OrderFIFO},
		},
	}
}

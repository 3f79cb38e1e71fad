package registry

import (
	"fmt"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/inorder/inordertest"
)

// InOrderFIFOs is the in-order FIFO family (RealFIFO drop-ins,
// queues/inorder), client-go's RealFIFO first in the configuration every
// v0.37 informer builds. Each constructor builds an empty queue honouring
// opts, or returns an error wrapping inorder.ErrUnsupportedMode for a mode
// the entry does not declare, so nothing runs it in a mode it would only
// pretend to have.
func InOrderFIFOs() List[func(opts inorder.Options) (inorder.Queue, error), inordertest.Guarantees] {
	return List[func(inorder.Options) (inorder.Queue, error), inordertest.Guarantees]{
		{
			Name:       Baseline,
			Doc:        "client-go RealFIFO as informers build it: atomic events, unlock-while-processing, bookmarks; one RWMutex, re-sliced slice",
			New:        func(opts inorder.Options) (inorder.Queue, error) { return clientGoRealFIFO(opts, true) },
			Guarantees: inordertest.Guarantees{Atomic: true, LockWhileProcessing: true},
		},
		{
			Name:       "clientgo-nonatomic",
			Doc:        "client-go RealFIFO in its non-atomic mode: per-object Replace and Resync against KnownObjects, processing under the lock",
			New:        func(opts inorder.Options) (inorder.Queue, error) { return clientGoRealFIFO(opts, false) },
			Guarantees: inordertest.Guarantees{PerObject: true},
		},
		{
			Name:       "mutex",
			Doc:        "one mutex, ring buffer, keys checked in a stack buffer, PopBatch's distinct keys by a reused hash set; both modes",
			New:        func(opts inorder.Options) (inorder.Queue, error) { return asInOrderQueue(inorder.NewMutex(opts)) },
			Guarantees: inordertest.Guarantees{Atomic: true, PerObject: true, LockWhileProcessing: true},
		},
		{
			Name:       "lockfree",
			Doc:        "writers push into a lock-free MPMC queue of rings and never lock; one consumer takes under its own mutex; atomic mode",
			New:        func(opts inorder.Options) (inorder.Queue, error) { return asInOrderQueue(inorder.NewLockFree(opts)) },
			Guarantees: inordertest.Guarantees{Atomic: true},
		},
	}
}

// asInOrderQueue returns a constructor's result as an inorder.Queue, and a
// nil Queue (not one holding a nil pointer) with its error.
func asInOrderQueue[Q inorder.Queue](q Q, err error) (inorder.Queue, error) {
	if err != nil {
		return nil, err
	}
	return q, nil
}

// clientGoRealFIFO builds client-go's RealFIFO in one mode: atomic as
// informers build it, or non-atomic over opts.KnownObjects, which that mode
// requires and the atomic one refuses.
func clientGoRealFIFO(opts inorder.Options, atomic bool) (inorder.Queue, error) {
	switch {
	case atomic && opts.KnownObjects != nil:
		return nil, fmt.Errorf("%w: the clientgo entry is the atomic informer queue; clientgo-nonatomic takes KnownObjects", inorder.ErrUnsupportedMode)
	case !atomic && opts.KnownObjects == nil:
		return nil, fmt.Errorf("%w: client-go's non-atomic RealFIFO requires KnownObjects", inorder.ErrUnsupportedMode)
	case opts.BatchSize != 0 && opts.BatchSize != inorder.DefaultBatchSize:
		return nil, fmt.Errorf("%w: client-go's RealFIFO batch size is fixed at %d", inorder.ErrUnsupportedMode, inorder.DefaultBatchSize)
	}
	return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{
		KeyFunction:           opts.KeyFunction,
		Transformer:           opts.Transformer,
		KnownObjects:          opts.KnownObjects,
		AtomicEvents:          atomic,
		UnlockWhileProcessing: atomic && !opts.LockWhileProcessing,
		EmitDeltaTypeBookmark: atomic && !opts.NoBookmarks,
	}), nil
}

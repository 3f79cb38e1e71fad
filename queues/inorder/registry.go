package inorder

import (
	"fmt"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/registry"
)

// Guarantees declares which of RealFIFO's modes an implementation offers.
// Order is never relaxed: every entry hands events out in arrival order.
type Guarantees struct {
	// Atomic: the zero Options (no KnownObjects) build the informers' queue.
	Atomic bool
	// PerObject: Options.KnownObjects builds client-go's non-atomic mode.
	PerObject bool
	// LockWhileProcessing: Options.LockWhileProcessing is honoured in atomic
	// mode.
	LockWhileProcessing bool
}

// New constructs a fresh, empty in-order FIFO honouring opts, or an error
// for options the implementation does not offer (ErrUnsupportedMode).
type New func(opts Options) (Queue, error)

// Impls is the in-order FIFO family's registry, client-go's RealFIFO first
// in the configuration every v0.37 informer builds.
var Impls = registry.List[New, Guarantees]{
	{
		Name:       registry.Baseline,
		Doc:        "client-go RealFIFO as informers build it: atomic events, unlock-while-processing, bookmarks; one RWMutex, re-sliced slice",
		New:        func(opts Options) (Queue, error) { return newRealFIFO(opts, true) },
		Guarantees: Guarantees{Atomic: true, LockWhileProcessing: true},
	},
	{
		Name:       "clientgo-nonatomic",
		Doc:        "client-go RealFIFO in its non-atomic mode: per-object Replace and Resync against KnownObjects, processing under the lock",
		New:        func(opts Options) (Queue, error) { return newRealFIFO(opts, false) },
		Guarantees: Guarantees{PerObject: true},
	},
	{
		Name:       "mutex",
		Doc:        "one mutex, ring buffer, keys checked in a stack buffer, PopBatch's distinct keys by a reused hash set; both modes",
		New:        func(opts Options) (Queue, error) { return asQueue(NewMutex(opts)) },
		Guarantees: Guarantees{Atomic: true, PerObject: true, LockWhileProcessing: true},
	},
	{
		Name:       "lockfree",
		Doc:        "writers push into a lock-free MPMC queue of rings and never lock; one consumer takes under its own mutex; atomic mode",
		New:        func(opts Options) (Queue, error) { return asQueue(NewLockFree(opts)) },
		Guarantees: Guarantees{Atomic: true},
	},
}

// asQueue returns a constructor's result as a Queue, and a nil Queue (not
// one holding a nil pointer) with its error.
func asQueue[Q Queue](q Q, err error) (Queue, error) {
	if err != nil {
		return nil, err
	}
	return q, nil
}

// newRealFIFO builds client-go's RealFIFO in one mode: atomic as informers
// build it, or non-atomic over opts.KnownObjects, which that mode requires
// and the atomic one refuses.
func newRealFIFO(opts Options, atomic bool) (Queue, error) {
	switch {
	case atomic && opts.KnownObjects != nil:
		return nil, fmt.Errorf("%w: the clientgo entry is the atomic informer queue; clientgo-nonatomic takes KnownObjects", ErrUnsupportedMode)
	case !atomic && opts.KnownObjects == nil:
		return nil, fmt.Errorf("%w: client-go's non-atomic RealFIFO requires KnownObjects", ErrUnsupportedMode)
	case opts.BatchSize != 0 && opts.BatchSize != DefaultBatchSize:
		return nil, fmt.Errorf("%w: client-go's RealFIFO batch size is fixed at %d", ErrUnsupportedMode, DefaultBatchSize)
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

// Entry is one registered implementation.
type Entry = registry.Entry[New, Guarantees]

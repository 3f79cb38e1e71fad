package pipeline

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/registry"
)

// InformerPath is what a measurement drives of an informer: the part of
// cache.SharedIndexInformer a writer path needs. Every informer-level
// measurement (the informer and store pipelines, BenchmarkInformerContention)
// builds it with Stack.NewInformer, so the shipped informer and the lab's
// candidates meet the same source, handler and readers.
type InformerPath interface {
	// RunWithContext lists, watches and applies until ctx ends, then
	// returns with nothing left running.
	RunWithContext(ctx context.Context)
	// HasSynced reports whether the initial list reached the store and
	// the handler.
	HasSynced() bool
	// GetIndexer is the store listers read.
	GetIndexer() cache.Indexer
}

// InformerOptions configure Stack.NewInformer.
type InformerOptions struct {
	// Indexers of the informer's store.
	Indexers cache.Indexers
	// Handler is told of every change applied to the store (required).
	Handler cache.ResourceEventHandler
	// Transform, if set, sees every object entering the FIFO, as
	// SharedIndexInformer.SetTransform's function does.
	Transform cache.TransformFunc
	// Batch lets a hand-assembled path pop in batches and write them as one
	// store transaction where its FIFO and store support it. The shipped
	// informer batches as client-go's feature gates say (on by default).
	Batch bool
	// OnError, if set, is told of every processing error a hand-assembled
	// path swallows, as client-go's controller does (the shipped informer
	// logs them).
	OnError func(error)
	// Backoff replaces a hand-assembled Reflector's wait between a watch
	// that ended and the next List (nil: client-go's default). The shipped
	// informer's cannot be changed.
	Backoff *wait.Backoff
}

// NewInformer builds stack st's informer over lw. The all-client-go stack is
// the informer controllers get from client-go v0.37:
// cache.NewSharedIndexInformerWithOptions (RealFIFO with atomic events,
// unlocked while processing, popped in batches, and one processorListener
// per handler). Any other stack is the Reflector over st's FIFO, applying to
// st's store and notifying the handler from the consumer's goroutine.
func (st Stack) NewInformer(lw cache.ListerWatcher, example runtime.Object, o InformerOptions) (InformerPath, error) {
	if st.Store.Name != registry.Baseline || st.FIFO.Name != registry.Baseline {
		return newAssembled(st, lw, example, o), nil
	}
	inf := cache.NewSharedIndexInformerWithOptions(lw, example, cache.SharedIndexInformerOptions{Indexers: o.Indexers})
	if o.Transform != nil {
		if err := inf.SetTransform(o.Transform); err != nil {
			return nil, err
		}
	}
	if _, err := inf.AddEventHandler(o.Handler); err != nil {
		return nil, err
	}
	return inf, nil
}

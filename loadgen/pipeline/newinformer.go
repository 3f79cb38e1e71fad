package pipeline

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
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
	// HasSynced reports whether the initial list reached the store.
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
	// Others are registered after Handler, each as a handler of its own.
	Others []cache.ResourceEventHandler
	// Transform, if set, sees every object entering the FIFO, as
	// SharedIndexInformer.SetTransform's function does.
	Transform cache.TransformFunc
}

// NewInformer builds stack st's informer over lw:
//
//   - the all-client-go stack is the informer controllers get from
//     client-go v0.37, cache.NewSharedIndexInformerWithOptions (RealFIFO
//     with atomic events, unlocked while processing, popped in batches,
//     and one processorListener per handler);
//   - every other stack is the lab's drop-in,
//     informer.NewSharedIndexInformer over st's store and FIFO (fifo
//     "clientgo" is informer.RealFIFO, the same RealFIFO), test fixtures
//     included: the drop-in takes any store and FIFO;
//   - a Default stack is NewDefaultInformer's.
func (st Stack) NewInformer(lw cache.ListerWatcher, example runtime.Object, o InformerOptions) (InformerPath, error) {
	var inf cache.SharedIndexInformer
	switch {
	case st.Default:
		return NewDefaultInformer(lw, example, o)
	case st.IsBaseline(Store):
		inf = cache.NewSharedIndexInformerWithOptions(lw, example, cache.SharedIndexInformerOptions{Indexers: o.Indexers})
	default:
		d, err := informer.NewSharedIndexInformer(lw, example, informer.Options{
			SharedIndexInformerOptions: cache.SharedIndexInformerOptions{Indexers: o.Indexers},
			FIFO:                       st.FIFO.New,
			Store:                      informer.Store{New: func(ix cache.Indexers) (cache.ThreadSafeStore, error) { return st.Store.New(ix), nil }},
		})
		if err != nil {
			return nil, err
		}
		inf = d
	}
	return register(inf, o)
}

// NewDefaultInformer builds the drop-in informer as a controller gets it
// without choosing parts: informer.NewSharedIndexInformer with zero
// Options but for the indexers (the informer's default FIFO and store).
func NewDefaultInformer(lw cache.ListerWatcher, example runtime.Object, o InformerOptions) (InformerPath, error) {
	inf, err := informer.NewSharedIndexInformer(lw, example, informer.Options{
		SharedIndexInformerOptions: cache.SharedIndexInformerOptions{Indexers: o.Indexers},
	})
	if err != nil {
		return nil, err
	}
	return register(inf, o)
}

// register sets o's transform on inf and adds o's handlers, in order.
func register(inf cache.SharedIndexInformer, o InformerOptions) (InformerPath, error) {
	if o.Transform != nil {
		if err := inf.SetTransform(o.Transform); err != nil {
			return nil, err
		}
	}
	for _, h := range append([]cache.ResourceEventHandler{o.Handler}, o.Others...) {
		if _, err := inf.AddEventHandler(h); err != nil {
			return nil, err
		}
	}
	return inf, nil
}

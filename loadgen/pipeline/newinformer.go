package pipeline

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
	labregistry "github.com/queuelab/queuelab/internal/lab/registry"
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
	// Others are registered after Handler, each as a handler of its own
	// (informers only: a hand-assembled path has one handler).
	Others []cache.ResourceEventHandler
	// Transform, if set, sees every object entering the FIFO, as
	// SharedIndexInformer.SetTransform's function does.
	Transform cache.TransformFunc
	// Batch lets a hand-assembled path pop in batches and write them as one
	// store transaction where its FIFO and store support it. Informers
	// batch as client-go's feature gates say (on by default).
	Batch bool
	// Backoff replaces a hand-assembled Reflector's wait between a watch
	// that ended and the next List (nil: client-go's default). An
	// informer's cannot be changed.
	Backoff *wait.Backoff
	// OnError, if set, is told of every processing error a hand-assembled
	// path swallows, as client-go's controller does (informers log them).
	OnError func(error)
}

// NewInformer builds stack st's informer over lw:
//
//   - the all-client-go stack is the informer controllers get from
//     client-go v0.37, cache.NewSharedIndexInformerWithOptions (RealFIFO
//     with atomic events, unlocked while processing, popped in batches,
//     and one processorListener per handler);
//   - a stack of registered parts is the lab's drop-in,
//     informer.NewSharedIndexInformer over st's store and FIFO (fifo
//     "clientgo" is the drop-in's informer.ClientGoFIFO, the same RealFIFO);
//   - parts the drop-in does not know by name (the harness's broken test
//     fixtures) are assembled by hand: client-go's Reflector into st's
//     FIFO (which must keep the DeltaFIFO contract: the consumer applies
//     cache.Deltas, not an atomic RealFIFO's ReplacedAll), one consumer
//     applying pops to st's store and calling the handler on its own
//     goroutine.
func (st Stack) NewInformer(lw cache.ListerWatcher, example runtime.Object, o InformerOptions) (InformerPath, error) {
	fifo := st.FIFO.Name
	if fifo == registry.Baseline {
		fifo = informer.ClientGoFIFO
	}
	_, storeErr := labregistry.Stores().Lookup(st.Store.Name)
	_, fifoErr := informer.FIFOs.Lookup(fifo)
	var inf cache.SharedIndexInformer
	switch {
	case st.Store.Name == registry.Baseline && st.FIFO.Name == registry.Baseline:
		inf = cache.NewSharedIndexInformerWithOptions(lw, example, cache.SharedIndexInformerOptions{Indexers: o.Indexers})
	case storeErr == nil && fifoErr == nil:
		d, err := informer.NewSharedIndexInformer(lw, example, informer.Options{
			SharedIndexInformerOptions: cache.SharedIndexInformerOptions{Indexers: o.Indexers},
			FIFO:                       fifo,
			Store:                      st.Store.Name,
		})
		if err != nil {
			return nil, err
		}
		inf = d
	default:
		if len(o.Others) > 0 {
			return nil, fmt.Errorf("pipeline: stack %s is assembled by hand and calls one handler, not %d", st.Name(Informer), 1+len(o.Others))
		}
		return newAssembled(st, lw, example, o), nil
	}
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

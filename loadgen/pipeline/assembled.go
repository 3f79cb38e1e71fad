package pipeline

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer/consumer"
	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/stores"
)

// assembled is an informer put together by hand from parts the drop-in
// informer cannot name (test fixtures): client-go's Reflector feeding the
// FIFO, whose consumer applies every pop to a
// registry store (processDeltas semantics, PopBatch and one transaction per
// batch with Batch) and calls the handler on its own goroutine.
type assembled struct {
	store *stores.Indexer
	fifo  cache.Queue
	refl  *cache.Reflector
	cons  *consumer.Consumer
	batch bool
	// onError is InformerOptions.OnError.
	onError func(error)
}

func newAssembled(st Stack, lw cache.ListerWatcher, example runtime.Object, o InformerOptions) *assembled {
	store := stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, st.Store.New(o.Indexers))
	fifo := st.FIFO.New(informer.FIFOConfig{Name: "queuelab", KnownObjects: store, Transformer: o.Transform})
	refl := cache.NewReflectorWithOptions(lw, example, fifo, cache.ReflectorOptions{Name: "queuelab", Backoff: o.Backoff})
	return &assembled{store: store, fifo: fifo, refl: refl, cons: consumer.New(store, o.Handler), batch: o.Batch, onError: o.OnError}
}

// RunWithContext runs the Reflector and the consumer until ctx ends.
func (a *assembled) RunWithContext(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { a.refl.RunWithContext(ctx) })
	wg.Go(func() {
		a.cons.Run(a.fifo, a.batch, func(err error) {
			if a.onError != nil {
				a.onError(err)
			}
		})
	})
	<-ctx.Done()
	a.fifo.Close()
	wg.Wait()
}

// HasSynced is the FIFO's: the initial list was popped and applied.
func (a *assembled) HasSynced() bool { return a.fifo.HasSynced() }

// GetIndexer returns the store.
func (a *assembled) GetIndexer() cache.Indexer { return a.store }

// Resync asks the FIFO to resync, as a Reflector's resync timer would.
func (a *assembled) Resync() error { return a.fifo.Resync() }

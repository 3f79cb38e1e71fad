package controller

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer/consumer"
	"github.com/queuelab/queuelab/stores"
)

// labInformer is the informer the README's recipe assembles from the lab's
// parts — client-go's Reflector, a lab DeltaFIFO, a lab store behind
// stores.Indexer, and consumer's processDeltas — with the Informer surface
// a controller needs. It calls its handlers in registration order on the
// consumer goroutine, after the store write, instead of giving each one a
// goroutine and an unbounded buffer: a controller's handlers only enqueue.
// Handlers must be added before Run; it is the harness's job (and a
// controller author's) to register first, since a late handler would miss
// the objects already stored.
type labInformer struct {
	indexer  *stores.Indexer
	fifo     cache.Queue
	refl     *cache.Reflector
	mu       sync.Mutex
	handlers []cache.ResourceEventHandler
	started  bool
	stopped  atomic.Bool
}

var _ Informer = (*labInformer)(nil)

func newLabInformer(lw cache.ListerWatcher, store cache.ThreadSafeStore, newFIFO func(cache.DeltaFIFOOptions) cache.Queue) (*labInformer, error) {
	if lw == nil || store == nil || newFIFO == nil {
		return nil, errors.New("controller: lab informer needs a ListerWatcher, a store and a DeltaFIFO")
	}
	inf := &labInformer{indexer: stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, store)}
	inf.fifo = newFIFO(cache.DeltaFIFOOptions{
		KeyFunction:           cache.MetaNamespaceKeyFunc,
		KnownObjects:          inf.indexer,
		EmitDeltaTypeReplaced: true,
	})
	inf.refl = cache.NewReflectorWithOptions(lw, &corev1.Pod{}, inf.fifo, cache.ReflectorOptions{Name: "queuelab-lab-informer", TypeDescription: "*v1.Pod"})
	return inf, nil
}

// errStarted: handlers cannot be added once the informer runs.
var errStarted = errors.New("controller: the lab informer takes handlers before Run only")

// AddEventHandler implements Informer.
func (i *labInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.started {
		return nil, errStarted
	}
	i.handlers = append(i.handlers, h)
	return registration{i}, nil
}

// AddEventHandlerWithResyncPeriod implements Informer; the stream's resync
// markers drive resyncs, so the period is not used.
func (i *labInformer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, _ time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

// AddEventHandlerWithOptions implements Informer.
func (i *labInformer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, _ cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

// RemoveEventHandler implements Informer: only before Run, like adding.
func (i *labInformer) RemoveEventHandler(cache.ResourceEventHandlerRegistration) error {
	return errors.New("controller: the lab informer does not remove handlers")
}

// AddIndexers implements Informer.
func (i *labInformer) AddIndexers(idx cache.Indexers) error { return i.indexer.AddIndexers(idx) }

// HasSynced implements Informer: the initial list has been popped.
func (i *labInformer) HasSynced() bool { return i.fifo.HasSynced() }

// HasSyncedChecker implements Informer.
func (i *labInformer) HasSyncedChecker() cache.DoneChecker { return i.fifo.HasSyncedChecker() }

// IsStopped implements Informer.
func (i *labInformer) IsStopped() bool { return i.stopped.Load() }

// GetIndexer implements Informer.
func (i *labInformer) GetIndexer() cache.Indexer { return i.indexer }

// RunWithContext runs the Reflector and the consumer until ctx ends.
func (i *labInformer) RunWithContext(ctx context.Context) {
	i.mu.Lock()
	i.started = true
	var h cache.ResourceEventHandler = fanout(i.handlers)
	if len(i.handlers) == 1 {
		h = i.handlers[0]
	}
	i.mu.Unlock()
	var wg sync.WaitGroup
	wg.Go(func() { i.refl.RunWithContext(ctx) })
	wg.Go(func() {
		consumer.New(i.indexer, h).Run(i.fifo, true, func(error) {})
	})
	<-ctx.Done()
	i.fifo.Close()
	wg.Wait()
	i.stopped.Store(true)
}

// fanout calls every handler in order.
type fanout []cache.ResourceEventHandler

func (f fanout) OnAdd(obj any, initial bool) {
	for _, h := range f {
		h.OnAdd(obj, initial)
	}
}

func (f fanout) OnUpdate(old, obj any) {
	for _, h := range f {
		h.OnUpdate(old, obj)
	}
}

func (f fanout) OnDelete(obj any) {
	for _, h := range f {
		h.OnDelete(obj)
	}
}

// registration reports the informer's sync: handlers see every initial
// object before the initial list counts as popped.
type registration struct{ i *labInformer }

func (r registration) HasSynced() bool                     { return r.i.HasSynced() }
func (r registration) HasSyncedChecker() cache.DoneChecker { return r.i.HasSyncedChecker() }

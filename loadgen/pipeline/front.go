package pipeline

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
	"github.com/queuelab/queuelab/queues/deltafifo/consumer"
	"github.com/queuelab/queuelab/stores"
)

// front is the informer half both the informer and the store pipelines
// share: source → client-go's Reflector → DeltaFIFO → consumer writing the
// store (a stores.Indexer over the registry's store) and notifying a
// handler.
type front struct {
	e     *env
	src   *watchsrc.Source
	store cache.Indexer
	fifo  cache.Queue
	refl  *cache.Reflector
	cons  *consumer.Consumer
}

// indexers are the informer store's indexes: namespace (what listers use)
// and the app label.
func indexers() cache.Indexers {
	return cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		gen.AppLabel: func(obj any) ([]string, error) {
			if p, ok := obj.(*corev1.Pod); ok {
				return []string{p.Labels[gen.AppLabel]}, nil
			}
			return nil, nil
		},
	}
}

// relistBackoff replaces the Reflector's default 0.8–30 s backoff between a
// failed or expired watch and the next List: a relist storm in simulated
// time must not turn into seconds of idle wall time.
var relistBackoff = wait.Backoff{Duration: time.Millisecond}

func (e *env) newFront(st Stack, h cache.ResourceEventHandler) *front {
	store := stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, st.Store.New(indexers()))
	fifo := st.FIFO.New(cache.DeltaFIFOOptions{
		KeyFunction:           cache.MetaNamespaceKeyFunc,
		KnownObjects:          store,
		EmitDeltaTypeReplaced: true,
	})
	src := watchsrc.New(e.stream, e.objs, e.led, e.o.Schedule, e.base)
	src.OnResync = func() {
		// Counted like every swallowed error, so a broken Resync shows in the
		// run's process_errors instead of vanishing.
		if fifo.Resync() != nil {
			e.procErrs.Add(1)
		}
	}
	backoff := relistBackoff
	refl := cache.NewReflectorWithOptions(src.ListerWatcher(), &corev1.Pod{}, fifo, cache.ReflectorOptions{
		Name:            "queuelab",
		TypeDescription: "*v1.Pod",
		Backoff:         &backoff,
	})
	return &front{e: e, src: src, store: store, fifo: fifo, refl: refl, cons: consumer.New(newBookedStore(store, e.led), h)}
}

// start runs the Reflector and the consumer until ctx ends (stop).
func (f *front) start(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() { f.refl.RunWithContext(ctx) })
	wg.Go(func() { f.cons.Run(f.fifo, f.e.o.Batch, func(error) { f.e.procErrs.Add(1) }) })
}

// stop closes the queue so the consumer returns; the caller cancels the
// Reflector's context and waits.
func (f *front) stop() { f.fifo.Close() }

// expect is what Verify checks the store against.
func (f *front) expect() account.Expect {
	stored := map[int]uint64{}
	var foreign []string
	for _, obj := range f.store.List() {
		p, ok := obj.(*corev1.Pod)
		k, kok := 0, false
		if ok {
			k, kok = gen.KeyIndex(p.Name)
		}
		rv, rok := uint64(0), false
		if kok {
			rv, rok = gen.RV(p)
		}
		if !kok || !rok || k >= f.e.led.Keys() {
			key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			foreign = append(foreign, key)
			continue
		}
		stored[k] = rv
	}
	return account.Expect{
		Name:    f.e.objs.Key,
		Truth:   f.e.stream.Final,
		Stored:  stored,
		Foreign: foreign,
		Deletes: true,
	}
}

// keyOf returns the ledger index of a notified object (tombstones
// included).
func keyOf(obj any) (int, bool) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return gen.KeyIndex(o.Name)
	case cache.DeletedFinalStateUnknown:
		return gen.KeyIndex(o.Key)
	}
	return 0, false
}

// applied books a store write of obj, for stale-read checks, and returns
// its key and resourceVersion (ok false: not a stream object, counted as a
// process error).
func (e *env) applied(obj any) (k int, rv uint64, ok bool) {
	p, isPod := obj.(*corev1.Pod)
	if !isPod {
		e.procErrs.Add(1)
		return 0, 0, false
	}
	k, kok := gen.KeyIndex(p.Name)
	rv, rok := gen.RV(p)
	if !kok || !rok || k >= e.led.Keys() {
		e.procErrs.Add(1)
		return 0, 0, false
	}
	e.led.Applied(k, rv, false)
	return k, rv, true
}

// deleted books a deletion the handler was notified of (tombstones
// included) and returns its key.
func (e *env) deleted(obj any) (int, bool) {
	k, ok := keyOf(obj)
	if !ok || k >= e.led.Keys() {
		e.procErrs.Add(1)
		return 0, false
	}
	e.led.Deleted(k)
	last := obj
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		last = t.Obj
	}
	var rv uint64
	if p, ok := last.(*corev1.Pod); ok {
		rv, _ = gen.RV(p)
	}
	e.led.Applied(k, rv, true)
	return k, true
}

// checkRead checks a store read of key k against what was applied before
// it began, and returns the object's resourceVersion.
func (e *env) checkRead(k int, before account.Read, obj any, exists bool) uint64 {
	var rv uint64
	if p, ok := obj.(*corev1.Pod); ok && exists {
		rv, _ = gen.RV(p)
	}
	e.led.CheckRead(k, before, exists, rv)
	return rv
}

package pipeline

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// front is the informer half both the informer and the store pipelines
// share: source → the stack's informer (Stack.NewInformer: client-go's
// shipped informer for the all-client-go stack) → store, and a handler told
// of every change applied.
type front struct {
	e     *env
	src   *watchsrc.Source
	inf   InformerPath
	store cache.Indexer
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

// newFront builds the informer half with handler h and, after it, others;
// the source injects Options.Faults.
func (e *env) newFront(st Stack, h cache.ResourceEventHandler, others ...cache.ResourceEventHandler) (*front, error) {
	f := &front{e: e, src: watchsrc.New(e.stream, e.objs, e.led, e.o.Schedule, e.base)}
	if err := f.src.Inject(e.o.Faults); err != nil {
		return nil, err
	}
	if e.fp != nil {
		f.src.OnList = e.fp.listed
	}
	inf, err := st.NewInformer(f.src.ListerWatcher(), &corev1.Pod{}, InformerOptions{
		Indexers:  indexers(),
		Handler:   h,
		Others:    others,
		Transform: f.announce,
	})
	if err != nil {
		return nil, err
	}
	f.inf, f.store = inf, inf.GetIndexer()
	return f, nil
}

// announce is the informer's transform: it tells the ledger that a write
// of the object's key is on its way to the store (Begin) unless the store
// already holds that very version, which no handler hears of again. It runs
// as the object enters the FIFO, before any write it causes; the deletions
// a relist implies never pass here and the source announces them. So every
// notified write was announced, and a reader that finds a key absent can
// tell a lost key from a racing delete whatever the informer's insides.
func (f *front) announce(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	k, kok := gen.KeyIndex(p.Name)
	rv, rok := gen.RV(p)
	if !kok || !rok || k >= f.e.led.Keys() {
		return obj, nil
	}
	if old, exists, _ := f.store.GetByKey(f.e.objs.Key(k)); exists && sameRV(old, rv) {
		return obj, nil
	}
	f.e.led.Begin(k)
	return obj, nil
}

// sameRV reports whether obj is a stream object at resourceVersion rv.
func sameRV(obj any, rv uint64) bool {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return false
	}
	orv, ok := gen.RV(p)
	return ok && orv == rv
}

// start runs the informer until ctx ends (the caller cancels and waits).
func (f *front) start(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() { f.inf.RunWithContext(ctx) })
}

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
	st := f.src.Stats()
	return account.Expect{
		Name:    f.e.objs.Key,
		Truth:   f.e.stream.Final,
		Stored:  stored,
		Foreign: foreign,
		Deletes: true,
		// One Replace per List after the first, one per resync marker.
		Renotify: int(max(st.Lists-1, 0) + st.Resyncs),
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

// applied books a store write of obj (replacing old, nil for an add), for
// stale-read checks, and returns its key and resourceVersion (ok false: not
// a stream object, counted as a process error). A write of the version the
// store already held was never announced (see announce) and is not booked.
func (e *env) applied(old, obj any) (k int, rv uint64, ok bool) {
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
	if p, isPod := old.(*corev1.Pod); isPod {
		switch orv, _ := gen.RV(p); {
		case orv == rv:
			e.led.Renotified(k)
			if e.fp != nil {
				e.fp.notified(k, rv, false)
			}
			return k, rv, true
		case orv > rv:
			e.led.Flag(account.Regressed, k)
		}
	}
	e.led.Applied(k, rv, false)
	if e.fp != nil {
		e.fp.notified(k, rv, false)
	}
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
	rv := lastRV(obj)
	e.led.Applied(k, rv, true)
	if e.fp != nil {
		e.fp.notified(k, rv, true)
	}
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

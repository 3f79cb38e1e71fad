package pipeline

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/handlerfault"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// informerRun is the stack's informer (source → Reflector → FIFO → store
// + handler) → workqueue → workers reading the store.
type informerRun struct {
	e      *env
	f      *front
	q      workqueue.TypedRateLimitingInterface[string]
	lats   []*metrics.Latency
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// hf is the misbehaving handlers' state (nil: Options.Handlers is
	// off).
	hf *handlerfault.Injector
}

func newInformerRun(e *env, st Stack, layer Layer) (*informerRun, error) {
	r := &informerRun{e: e, q: layer(st.WorkQ.New(), newLimiter())}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	h := enqueuer{e: e, q: r.q}
	var others []cache.ResourceEventHandler
	if o := e.o.Handlers; o.Panics > 0 || o.Blocks > 0 {
		r.hf = newHandlerFaults(e, o, r.ctx)
		h.f = r.hf
		if o.Blocks > 0 {
			others = append(others, r.hf.Blocker())
			e.caughtUp = r.hf.CaughtUp
		}
	}
	var err error
	if r.f, err = e.newFront(st, h, others...); err != nil {
		r.cancel()
		return nil, err
	}
	if r.hf != nil {
		r.hf.EndsWith(r.f.src.Exhausted())
	}
	return r, nil
}

func (r *informerRun) start() {
	r.f.start(r.ctx, &r.wg)
	for i := range r.e.o.Workers {
		lat := metrics.NewLatency()
		r.lats = append(r.lats, lat)
		r.wg.Go(func() { r.e.work(r.q, storeReader{r.e, r.f.store}, lat, r.e.stream.Config.Seed+uint64(i)) })
	}
}

func (r *informerRun) release()                      { r.f.src.Start() }
func (r *informerRun) listed() bool                  { return r.f.src.Stats().Lists > 0 }
func (r *informerRun) exhausted() <-chan struct{}    { return r.f.src.Exhausted() }
func (r *informerRun) depth() int64                  { return int64(r.q.Len()) }
func (r *informerRun) latencies() []*metrics.Latency { return r.lats }
func (r *informerRun) stored() int                   { return len(r.f.store.ListKeys()) }

func (r *informerRun) stop() {
	r.q.ShutDown()
	r.cancel()
	r.wg.Wait()
}

func (r *informerRun) expect() account.Expect {
	e := r.f.expect()
	e.Reconciled = true
	return e
}

func (r *informerRun) finish(res *Result) {
	res.Source = r.f.src.Stats()
	if r.hf != nil {
		r.hf.CheckFinal()
	}
}

func (r *informerRun) source() *watchsrc.Source { return r.f.src }

// enqueuer is the informer's event handler: every notification enqueues
// the object's key, as a controller's handlers do; deletions are counted
// for the books.
type enqueuer struct {
	e *env
	q workqueue.TypedRateLimitingInterface[string]
	// f, if set, counts notifications and panics on the chosen ones.
	f *handlerfault.Injector
}

var _ cache.ResourceEventHandler = enqueuer{}

// OnAdd implements cache.ResourceEventHandler.
func (h enqueuer) OnAdd(obj any, _ bool) { h.e.applied(nil, obj); h.enqueue(obj, false) }

// OnUpdate implements cache.ResourceEventHandler.
func (h enqueuer) OnUpdate(old, obj any) { h.e.applied(old, obj); h.enqueue(obj, false) }

// OnDelete implements cache.ResourceEventHandler.
func (h enqueuer) OnDelete(obj any) {
	h.e.deleted(obj)
	h.enqueue(obj, true)
}

func (h enqueuer) enqueue(obj any, deleted bool) {
	if h.f != nil {
		h.f.Enqueuing(obj, deleted)
	}
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		h.e.procErrs.Add(1)
		return
	}
	h.e.progress.Add(1)
	h.q.Add(key)
}

// storeReader is the informer pipeline's reconcile: read the object back
// through the store and list its namespace's objects, as a controller's
// lister calls do; it covers a key's changes once it sees the newest state,
// and checks the read was not stale.
type storeReader struct {
	e     *env
	store cache.Indexer
}

func (s storeReader) observe(key string, k int) (uint64, bool) {
	before := s.e.led.BeforeRead(k)
	obj, exists, err := s.store.GetByKey(key)
	if err != nil {
		return 0, false
	}
	rv := s.e.checkRead(k, before, obj, exists) // absent can be stale too
	if !exists {
		return 0, false
	}
	if p, ok := obj.(*corev1.Pod); ok {
		_, _ = s.store.ByIndex(cache.NamespaceIndex, p.Namespace)
	}
	return rv, true
}

func (s storeReader) cover(k int, rv uint64, exists bool, now int64) (int64, bool) {
	return s.e.led.CoverState(k, rv, exists, now)
}

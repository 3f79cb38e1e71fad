package pipeline

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// storeRun is the informer's writer path (source → the stack's informer →
// store) under lister traffic: readers doing Get, ByIndex and List against the
// store the writer is applying the stream to.
type storeRun struct {
	e      *env
	f      *front
	w      *applier
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	rstop  chan struct{}
	rwg    sync.WaitGroup
	reads  atomic.Int64
}

func newStoreRun(e *env, st Stack) (*storeRun, error) {
	r := &storeRun{e: e, w: &applier{e: e, lat: metrics.NewLatency()}, rstop: make(chan struct{})}
	var err error
	if r.f, err = e.newFront(st, r.w); err != nil {
		return nil, err
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r, nil
}

func (r *storeRun) start() { r.f.start(r.ctx, &r.wg) }

// release starts the readers with the stream: the initial sync is not
// contended.
func (r *storeRun) release() {
	for i := range r.e.o.Readers {
		r.rwg.Go(func() { r.read(r.e.stream.Config.Seed + uint64(i)) })
	}
	r.f.src.Start()
}

func (r *storeRun) listed() bool                  { return r.f.src.Stats().Lists > 0 }
func (r *storeRun) exhausted() <-chan struct{}    { return r.f.src.Exhausted() }
func (r *storeRun) depth() int64                  { return 0 }
func (r *storeRun) latencies() []*metrics.Latency { return []*metrics.Latency{r.w.lat} }
func (r *storeRun) stored() int                   { return len(r.f.store.ListKeys()) }
func (r *storeRun) expect() account.Expect        { return r.f.expect() }
func (r *storeRun) source() *watchsrc.Source      { return r.f.src }

func (r *storeRun) stop() {
	close(r.rstop)
	r.rwg.Wait()
	r.cancel()
	r.wg.Wait()
}

func (r *storeRun) finish(res *Result) {
	res.Source = r.f.src.Stats()
	if s := res.Duration.Seconds(); s > 0 {
		res.ReadsPerSec = float64(r.reads.Load()) / s
		res.WritesPerSec = float64(r.w.writes.Load()) / s
	}
}

// read is one lister: it picks keys with the stream's popularity and reads
// by ReadMix until stopped. A Get that returns an older object than the
// writer had applied before the Get began is a stale read.
func (r *storeRun) read(seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x7ead))
	cfg := r.e.stream.Config
	var zipf *rand.Zipf
	if cfg.Zipf > 1 {
		zipf = rand.NewZipf(rng, cfg.Zipf, 1, uint64(cfg.Objects-1))
	}
	mix := r.e.o.ReadMix
	store := r.f.store
	var n int64
	defer func() { r.reads.Add(n) }()
	for {
		select {
		case <-r.rstop:
			return
		default:
		}
		k := 0
		if zipf != nil {
			k = int(zipf.Uint64())
		} else {
			k = rng.IntN(cfg.Objects)
		}
		switch u := rng.Float64(); {
		case u < mix.Get:
			before := r.e.led.BeforeRead(k)
			obj, exists, _ := store.GetByKey(r.e.objs.Key(k))
			r.e.checkRead(k, before, obj, exists)
		case u < mix.Get+mix.ByIndex:
			_, _ = store.ByIndex(cache.NamespaceIndex, r.e.objs.Namespace(k))
		default:
			_ = store.List()
		}
		if r.e.measuring.Load() {
			n++
		}
	}
}

// applier is the store pipeline's handler: a change counts as done once it
// is in the store, and from then on no reader may see an older version.
//
// Its latency is the change's staleness: from the change's emission (the
// time the watch source was due to send it, so a late emitter counts) to
// the moment the handler hears the key's newest state was written to the
// store, measured from the oldest change of the key not yet written. The
// handler runs after the write (after the whole transaction, with
// PopBatch; for the shipped informer, after its processorListener's
// hand-off too), when every reader can see it; a reader may see a write a
// little earlier, which makes the figure an upper bound by at most one
// batch and one hand-off, which is what a controller's handler waits. The cost on the writer's path is one
// clock read, one uncontended per-key lock and one histogram record.
type applier struct {
	e      *env
	lat    *metrics.Latency
	writes atomic.Int64
}

var _ cache.ResourceEventHandler = (*applier)(nil)

// OnAdd implements cache.ResourceEventHandler.
func (a *applier) OnAdd(obj any, _ bool) { a.apply(nil, obj) }

// OnUpdate implements cache.ResourceEventHandler.
func (a *applier) OnUpdate(old, obj any) { a.apply(old, obj) }

func (a *applier) apply(old, obj any) {
	if k, rv, ok := a.e.applied(old, obj); ok {
		a.done(a.e.led.CoverState(k, rv, true, a.e.now()))
	}
}

// OnDelete implements cache.ResourceEventHandler.
func (a *applier) OnDelete(obj any) {
	k, ok := a.e.deleted(obj)
	if !ok {
		return
	}
	a.done(a.e.led.CoverState(k, 0, false, a.e.now()))
}

func (a *applier) done(latency int64, covered bool) {
	a.e.progress.Add(1)
	if a.e.measuring.Load() {
		a.writes.Add(1)
		if covered {
			a.lat.Record(latency)
			if a.e.fp != nil {
				a.e.fp.record(latency)
			}
		}
	}
}

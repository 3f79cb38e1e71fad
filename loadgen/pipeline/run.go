package pipeline

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// runner is one pipeline's moving parts, driven by Run.
type runner interface {
	// start brings the pipeline up; informer-style pipelines list (the
	// initial sync) right away.
	start()
	// listed reports whether the initial sync's List happened (always
	// true without one).
	listed() bool
	// release starts the measured stream.
	release()
	// exhausted is closed once the whole stream was emitted.
	exhausted() <-chan struct{}
	// depth is the workqueue's length (0 without one).
	depth() int64
	latencies() []*metrics.Latency
	// stored is the number of objects in the store (0 without one).
	stored() int
	// stop shuts everything down and waits for every goroutine.
	stop()
	expect() account.Expect
	finish(*Result)
	// source is the watch source the pipeline lists and watches (nil
	// without one).
	source() *watchsrc.Source
}

// Run drives stream s (with objects objs) through pipeline k built from st
// and returns the measurements and the verdict. An error means the run
// could not happen (bad options, ctx canceled); an incorrect run returns a
// Result whose OK is false.
func Run(ctx context.Context, k Kind, st Stack, s *gen.Stream, objs *gen.Objects, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	e := &env{stream: s, objs: objs, led: account.New(s.Universe()), o: o, base: time.Now()}
	if o.Footprint {
		if k != Store {
			return nil, fmt.Errorf("footprint: measured in the %s pipeline only, not %s", Store, k)
		}
		e.fp = newRelists(e)
	}
	layer := o.Layer
	if layer == nil {
		layer = DefaultLayer(st.WorkQ.Name == registry.Baseline)
	}
	var (
		r   runner
		err error
	)
	switch k {
	case WorkQueue:
		r = newWorkqueueRun(e, st, layer)
	case Informer:
		r, err = newInformerRun(e, st, layer)
	case Store:
		r, err = newStoreRun(e, st)
	default:
		return nil, fmt.Errorf("unknown pipeline %q", k)
	}
	if err != nil {
		return nil, err
	}
	res := &Result{Pipeline: k, Impl: st.Name(k), Baseline: st.IsBaseline(k), Digest: s.Digest}

	// The handlers' panics reach the informer's policy; restored after
	// stop (deferred below, so it runs first), once no handler runs.
	defer o.Handlers.AllowPanics()()
	heap0 := metrics.LiveHeap()
	metrics.ResetPeakRSS()
	t := time.Now()
	r.start()
	stop := sync.OnceFunc(r.stop)
	defer stop()
	if stalled := e.drain(ctx, nil, r.listed); stalled {
		res.Stalled = true
		stop()
		res.Violations = e.led.Verify(r.expect())
		return res, ctx.Err()
	}
	res.Sync = time.Since(t)
	gauges := []metrics.Gauge{r.depth, e.led.Uncovered}
	if e.fp != nil {
		e.fp.atSync(&res.Footprint, heap0, objs, s.Config.Objects)
		gauges = append(gauges, e.fp.sample)
	}

	snap0 := metrics.ReadSnapshot()
	emitted0 := e.led.Emitted()
	stopProfiles, err := o.Profiles.Start()
	if err != nil {
		return nil, err
	}
	var tick func()
	if o.Progress != nil {
		tick = func() { o.Progress(e.led.Emitted() - emitted0) }
	}
	sampler := metrics.StartSampler(tick, gauges...)
	e.measuring.Store(true)
	t0 := time.Now()
	r.release()
	src := r.source()
	var paused0 time.Duration
	if src != nil {
		paused0 = src.Stats().Paused
		e.relisting = src.BackingOff
	}
	res.Stalled = e.drain(ctx, r.exhausted(), e.caughtUp)
	res.Duration = time.Since(t0)
	if src != nil && !res.Stalled {
		res.Converge = time.Duration(e.now()) - src.ExhaustedAt()
	}
	if src != nil {
		// A relist backoff is a wait for real time that the stream's
		// compressed simulated time would multiply; no stack is charged
		// for it (watchsrc.Stats.Paused).
		res.Duration -= src.Stats().Paused - paused0
	}
	e.measuring.Store(false)
	heapPeak, peaks := sampler.Stop()
	usage := metrics.ReadSnapshot().Since(snap0)
	if err := stopProfiles(); err != nil {
		return nil, err
	}

	res.Events = e.led.Emitted() - emitted0
	if sec := res.Duration.Seconds(); sec > 0 {
		res.EventsPerSec = float64(res.Events) / sec
	}
	res.PeakDepth, res.PeakPending = peaks[0], peaks[1]
	res.PeakHeap = sub(heapPeak, heap0)
	res.PeakRSS, _ = metrics.PeakRSS()
	if n := r.stored(); n > 0 {
		res.RetainedPerObject = float64(sub(metrics.LiveHeap(), heap0)) / float64(n)
	}
	if res.Events > 0 {
		res.AllocsPerEvent = float64(usage.Allocs) / float64(res.Events)
		res.BytesPerEvent = float64(usage.AllocBytes) / float64(res.Events)
	}
	res.GCPause, res.GCCPUFraction = usage.GCPause, usage.GCCPUFraction
	stop()
	if e.fp != nil {
		e.fp.finish(&res.Footprint, heap0)
	}
	runtime.KeepAlive(r)
	// Recorders are stopped: their histograms can be read.
	all := metrics.NewLatency()
	for _, l := range r.latencies() {
		all.Merge(l)
	}
	res.Latency = all.Quantiles()
	if res.Events > 0 {
		res.ReconcilesPerEvent = float64(e.reconciles.Load()) / float64(res.Events)
	}
	r.finish(res)
	res.ProcessErrors = e.procErrs.Load()
	res.Skipped = e.led.Skipped()
	res.Violations = e.led.Verify(r.expect())
	if o.Converge > 0 && res.Converge > o.Converge {
		res.Violations = append(res.Violations, account.Late(res.Converge, o.Converge))
	}
	return res, ctx.Err()
}

// relistStall is how long a pipeline whose Reflector is in its relist
// backoff may go without progress before it counts as stalled.
const relistStall = 2 * time.Minute

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// drain waits for the stream and the pipeline by the rule every load run
// shares (account.Ledger.Drain); a Reflector in its relist backoff may go
// up to relistStall without progress.
func (e *env) drain(ctx context.Context, exhausted <-chan struct{}, ready func() bool) (stalled bool) {
	o := account.DrainOptions{Exhausted: exhausted, Ready: ready, Progress: e.progress.Load, Stall: e.o.Stall}
	if relisting := e.relisting; relisting != nil {
		// client-go's Reflector waits up to a minute (30 s with jitter
		// up to 2×) before it lists again.
		o.Longer = func() time.Duration {
			if relisting() {
				return relistStall
			}
			return 0
		}
	}
	return e.led.Drain(ctx, o)
}

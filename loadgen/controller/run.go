package controller

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/handlerfault"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// indexers are the informer's indexes: the namespace index listers use,
// as every informer from client-go's factory has.
func indexers() cache.Indexers {
	return cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
}

// run is one controller's state in a run: the books, the measurements and
// the reconcile both styles call. A run of several controllers
// (Options.Controllers) has one per controller: the first, which the watch
// source books its emissions in, drives the run and holds them all (fleet).
type run struct {
	o      Options
	name   string // the controller's name (controller-runtime's, its queue's)
	stream *gen.Stream
	objs   *gen.Objects
	led    *account.Ledger
	base   time.Time
	lister listersv1.PodLister
	// emitAt[rv-InitialRV] is when the watch event of rv was emitted (ns
	// on the run's clock, +1 so 0 means none), taken by the first
	// notification of it.
	emitAt []atomic.Int64
	// initialSeen[k] is set by the first cover of initial key k, which
	// observes its initial-list state (the oldest pending change);
	// initialCovered counts them, and syncedAt is 1 + when it reached
	// Objects.
	initialSeen    []atomic.Bool
	initialCovered atomic.Int64
	syncedAt       atomic.Int64
	measuring      atomic.Bool
	reconciles     atomic.Int64 // in the measured phase
	progress       atomic.Int64 // every reconcile and notification: stall detection
	procErrs       atomic.Int64
	// lats is a pool of latency histograms, one per concurrent reconcile.
	lats chan *metrics.Latency
	// version reads the per-key increasing version the ledger books: the
	// resourceVersion offline, an annotation against an API server.
	version func(metav1.Object) (uint64, bool)
	allLats []*metrics.Latency
	staleMu sync.Mutex
	stale   *metrics.Latency
	// fleet is every controller on the informer, this one first (set in
	// the first one only); deletes[rv-InitialRV] says whether the watch
	// event of rv deletes, for booking it in the others' ledgers.
	fleet   []*run
	deletes []bool
	// faults, if set, makes the controller's handler panic at its chosen
	// notifications (Options.Handlers).
	faults *handlerfault.Injector
}

// now is the run's clock in ns, shared with the ledger.
func (r *run) now() int64 { return int64(time.Since(r.base)) }

// errInjected is the failure a reconcile reports ErrorRate of the time.
var errInjected = errors.New("controller: injected reconcile failure")

// reconcile is the controller's business logic, the same in both styles:
// Get the object through the lister, List its namespace's pods with its
// app label Lists times, burn ReconcileCost, fail ErrorRate of the time.
// A successful reconcile that saw the newest emitted state covers the
// key's pending changes in the ledger.
func (r *run) reconcile(namespace, name string) error {
	k, ok := gen.KeyIndex(name)
	if !ok || k >= r.led.Keys() {
		r.procErrs.Add(1)
		return nil
	}
	entered := r.led.Enter(k)
	before := r.led.BeforeRead(k)
	pods := r.lister.Pods(namespace)
	pod, err := pods.Get(name)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		r.procErrs.Add(1)
	}
	var rv uint64
	if exists {
		rv, _ = r.version(pod)
		sel := labels.SelectorFromSet(labels.Set{gen.AppLabel: pod.Labels[gen.AppLabel]})
		for range r.o.Lists {
			if _, err := pods.List(sel); err != nil {
				r.procErrs.Add(1)
			}
		}
	}
	r.led.CheckRead(k, before, exists, rv)
	spin(r.o.ReconcileCost)
	if r.o.ReconcileSleep > 0 {
		time.Sleep(r.o.ReconcileSleep)
	}
	failed := r.o.ErrorRate > 0 && rand.Float64() < r.o.ErrorRate
	if !failed {
		now := r.now()
		if latency, covered := r.led.CoverState(k, rv, exists, now); covered {
			r.covered(k, now, latency)
		}
	}
	if entered {
		r.led.Exit(k)
	}
	r.progress.Add(1)
	if r.measuring.Load() {
		r.reconciles.Add(1)
	}
	if failed {
		return errInjected
	}
	return nil
}

// covered books a reconcile of key k that observed a change emitted
// latency ago: the initial list's changes count towards being synced,
// live ones are latency samples.
func (r *run) covered(k int, now, latency int64) {
	if k < len(r.initialSeen) && !r.initialSeen[k].Load() && r.initialSeen[k].CompareAndSwap(false, true) {
		if r.initialCovered.Add(1) == int64(len(r.initialSeen)) {
			r.syncedAt.Store(now + 1)
		}
		return
	}
	if r.measuring.Load() {
		lat := <-r.lats
		lat.Record(latency)
		r.lats <- lat
	}
}

// onEmit is the source's hook for every watch event; it books the event
// in the other controllers' ledgers, as the source books it in r's right
// after.
func (r *run) onEmit(k int, rv uint64, at int64) {
	i := rv - r.stream.InitialRV
	if rv <= r.stream.InitialRV || i >= uint64(len(r.emitAt)) {
		return
	}
	r.emitAt[i].Store(at + 1)
	for _, p := range r.fleet[1:] {
		p.led.Emit(k, rv, r.deletes[i], at)
	}
}

// notified books a store write the informer announced to its handler, for
// the stale-read check and the staleness histogram.
func (r *run) notified(obj any, deleted bool) {
	r.progress.Add(1)
	last := obj
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		last = t.Obj
	}
	k, rv, ok := r.keyRV(last)
	if !ok {
		if t, isTomb := obj.(cache.DeletedFinalStateUnknown); isTomb && deleted {
			k, ok = gen.KeyIndex(t.Key)
		}
		if !ok || k >= r.led.Keys() {
			r.procErrs.Add(1)
			return
		}
	}
	if deleted {
		r.led.Deleted(k)
	}
	r.led.Applied(k, rv, deleted)
	if i := rv - r.stream.InitialRV; rv > r.stream.InitialRV && i < uint64(len(r.emitAt)) {
		if at := r.emitAt[i].Swap(0); at != 0 && r.measuring.Load() {
			r.staleMu.Lock()
			r.stale.Record(r.now() - (at - 1))
			r.staleMu.Unlock()
		}
	}
}

// renotified books an update notification that carried the
// resourceVersion the store already held (a relist's Replace, a resync):
// the informer contract allows one per relist and resync, which verify
// checks. The object's own resourceVersion, not the booked version: an API
// server writes objects the stream does not change (setting a Pod's
// deletionTimestamp before deleting it), each at a new resourceVersion;
// client-go's fake clientset assigns none, so it cannot be checked there.
func (r *run) renotified(old, obj any) {
	p, ok := obj.(*corev1.Pod)
	op, ook := old.(*corev1.Pod)
	if !ok || !ook || p.ResourceVersion == "" || p.ResourceVersion != op.ResourceVersion {
		return
	}
	if k, _, ok := r.keyRV(p); ok {
		r.led.Renotified(k)
	}
}

// faultKey is a notified object's key and version for the handler
// faults, a tombstone's last state included.
func (r *run) faultKey(obj any) (int, uint64, bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		if k, rv, ok := r.keyRV(t.Obj); ok {
			return k, rv, true
		}
		k, ok := gen.KeyIndex(t.Key)
		return k, 0, ok && k < r.led.Keys()
	}
	return r.keyRV(obj)
}

func (r *run) keyRV(obj any) (int, uint64, bool) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return 0, 0, false
	}
	k, kok := gen.KeyIndex(p.Name)
	rv, rok := r.version(p)
	return k, rv, kok && rok && k < r.led.Keys()
}

// measured wraps an informer so every handler a controller registers
// books the informer's notifications first; registered is closed once one
// is registered, so the informer runs with the controller's handler in
// place and every initial object is booked as the stream's.
type measured struct {
	Informer
	r          *run
	registered chan struct{}
	once       sync.Once
}

func (m *measured) done(reg cache.ResourceEventHandlerRegistration, err error) (cache.ResourceEventHandlerRegistration, error) {
	if err == nil {
		m.once.Do(func() { close(m.registered) })
	}
	return reg, err
}

// AddEventHandler implements Informer.
func (m *measured) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return m.done(m.Informer.AddEventHandler(booking{m.r, h}))
}

// AddEventHandlerWithResyncPeriod implements Informer.
func (m *measured) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, d time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return m.done(m.Informer.AddEventHandlerWithResyncPeriod(booking{m.r, h}, d))
}

// AddEventHandlerWithOptions implements Informer.
func (m *measured) AddEventHandlerWithOptions(h cache.ResourceEventHandler, o cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return m.done(m.Informer.AddEventHandlerWithOptions(booking{m.r, h}, o))
}

type booking struct {
	r *run
	h cache.ResourceEventHandler
}

// OnAdd implements cache.ResourceEventHandler.
func (b booking) OnAdd(obj any, initial bool) {
	b.r.notified(obj, false)
	b.faulty(obj, false)
	b.h.OnAdd(obj, initial)
}

// OnUpdate implements cache.ResourceEventHandler.
func (b booking) OnUpdate(old, obj any) {
	b.r.notified(obj, false)
	b.r.renotified(old, obj)
	b.faulty(obj, false)
	b.h.OnUpdate(old, obj)
}

// OnDelete implements cache.ResourceEventHandler.
func (b booking) OnDelete(obj any) {
	b.r.notified(obj, true)
	b.faulty(obj, true)
	b.h.OnDelete(obj)
}

// faulty panics in place of the controller's handler at the chosen
// notifications, once they are booked.
func (b booking) faulty(obj any, deleted bool) {
	if b.r.faults != nil {
		b.r.faults.Enqueuing(obj, deleted)
	}
}

// controllerRun is a controller of one style, built and ready to start.
type controllerRun interface {
	// start registers the controller's handler on the informer and starts
	// its workers; it returns once they run.
	start(ctx context.Context, wg *sync.WaitGroup) error
	depth() int
}

// feed is where the watch events come from: the seeded source offline,
// writers through a clientset against an API server.
type feed interface {
	// listerWatcher is what the informer lists and watches.
	listerWatcher() cache.ListerWatcher
	// release starts the measured stream.
	release()
	exhausted() <-chan struct{}
	// exhaustedAt is when exhausted was closed, on the run's clock.
	exhaustedAt() time.Duration
	// patience is how long the run may now go without progress, if
	// longer than Options.Stall (0: Stall).
	patience() time.Duration
	// collapsed reports whether the informer relisted on its own, which
	// may merge a deletion and a re-creation (account.Expect.Collapsed).
	collapsed() bool
	stats() watchsrc.Stats
}

// sourceFeed is the lab's seeded watch source.
type sourceFeed struct{ *watchsrc.Source }

func (f sourceFeed) listerWatcher() cache.ListerWatcher { return f.ListerWatcher() }
func (f sourceFeed) release()                           { f.Start() }
func (f sourceFeed) exhausted() <-chan struct{}         { return f.Exhausted() }
func (f sourceFeed) exhaustedAt() time.Duration         { return f.ExhaustedAt() }
func (f sourceFeed) patience() time.Duration            { return 0 }
func (f sourceFeed) collapsed() bool                    { return false } // its relists are booked
func (f sourceFeed) stats() watchsrc.Stats              { return f.Stats() }

// Run drives stream s (objects objs) through a controller of style st on
// stack sk and returns the measurements and the verdict. An error means
// the run could not happen; an incorrect run returns a Result whose OK is
// false.
func Run(ctx context.Context, st Style, sk Stack, s *gen.Stream, objs *gen.Objects, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Outage != nil {
		return nil, gen.Fieldf("restart-after", "an outage needs an API server (RunAPI)")
	}
	if o.Controllers > 1 && s.Stats.MissedDeletes > 0 {
		return nil, gen.Fieldf("controllers", "%d controllers need a stream without missed deletes (it has %d)", o.Controllers, s.Stats.MissedDeletes)
	}
	r := newRun(s, objs, o)
	src := watchsrc.New(s, objs, r.led, o.Schedule, r.base)
	if err := src.Inject(o.Faults); err != nil {
		return nil, err
	}
	src.OnEmit = r.onEmit
	return r.drive(ctx, st, sk, sourceFeed{src})
}

// controllerName is the name of a controller of a run, its queue's name
// too: "queuelab", or "queuelab-<i>" for the i-th of several.
const controllerName = "queuelab"

// newRun returns the run's first controller, which holds them all.
// The source books emissions in the first one's ledger; the others' are
// booked by onEmit for watch events and here for the initial list, which
// the source books when the informer lists it (key k at resourceVersion
// k+1): no reconcile can observe it earlier.
func newRun(s *gen.Stream, objs *gen.Objects, o Options) *run {
	r := newController(s, objs, o, time.Now(), controllerName, make([]atomic.Int64, len(s.Events)+1))
	r.fleet = []*run{r}
	if o.Controllers <= 1 {
		return r
	}
	r.name += "-0"
	r.deletes = make([]bool, len(s.Events)+1)
	for _, e := range s.Events {
		if e.Kind == gen.Deleted {
			r.deletes[e.RV-s.InitialRV] = true
		}
	}
	for i := 1; i < o.Controllers; i++ {
		p := newController(s, objs, o, r.base, fmt.Sprintf("%s-%d", controllerName, i), r.emitAt)
		for k := range s.Config.Objects {
			p.led.Emit(k, uint64(k+1), false, p.now())
		}
		r.fleet = append(r.fleet, p)
	}
	return r
}

// newController is one controller's state; emitAt is shared by all of a
// run's, as the first notification of an event takes its emission time.
func newController(s *gen.Stream, objs *gen.Objects, o Options, base time.Time, name string, emitAt []atomic.Int64) *run {
	r := &run{
		o: o, name: name, stream: s, objs: objs, led: account.New(s.Universe()), base: base,
		version:     func(m metav1.Object) (uint64, bool) { return gen.RV(m) },
		emitAt:      emitAt,
		initialSeen: make([]atomic.Bool, s.Config.Objects),
		lats:        make(chan *metrics.Latency, o.Workers),
		stale:       metrics.NewLatency(),
	}
	for range o.Workers {
		l := metrics.NewLatency()
		r.allLats = append(r.allLats, l)
		r.lats <- l
	}
	return r
}

// all is every controller of the run, r first.
func (r *run) all() []*run { return r.fleet }

// sum adds f over every controller of the run.
func (r *run) sum(f func(*run) int64) int64 {
	var n int64
	for _, c := range r.all() {
		n += f(c)
	}
	return n
}

// setMeasuring starts or ends the measured phase for every controller.
func (r *run) setMeasuring(on bool) {
	for _, c := range r.all() {
		c.measuring.Store(on)
	}
}

// syncedAtAll is 1 + when the last controller had reconciled every object
// of the initial list, or 0 while one has not.
func (r *run) syncedAtAll() int64 {
	var last int64
	for _, c := range r.all() {
		at := c.syncedAt.Load()
		if at == 0 {
			return 0
		}
		last = max(last, at)
	}
	return last
}

// drive runs the controller over src until every change was reconciled.
func (r *run) drive(ctx context.Context, st Style, sk Stack, src feed) (*Result, error) {
	o, s := r.o, r.stream
	ie, err := lookupInformer(sk.Informer)
	if err != nil {
		return nil, err
	}
	heap0 := metrics.LiveHeap()
	metrics.ResetPeakRSS()
	base, err := ie.New(src.listerWatcher(), indexers())
	if err != nil {
		return nil, err
	}
	lister := listersv1.NewPodLister(base.GetIndexer())
	var cs []controllerRun
	var infs []*measured
	for _, cr := range r.all() {
		inf := &measured{Informer: base, r: cr, registered: make(chan struct{})}
		cr.lister = lister
		var c controllerRun
		switch st {
		case ClientGo:
			c, err = newClientGo(cr, inf, sk.Queue)
		case CtrlRuntime:
			c, err = newCtrlRuntime(cr, inf, sk.Queue)
		default:
			err = fmt.Errorf("unknown controller style %q", st)
		}
		if err != nil {
			return nil, err
		}
		cs, infs = append(cs, c), append(infs, inf)
	}
	res := &Result{Style: st, Impl: sk.Name(), Baseline: sk == Baseline(st), Digest: s.Digest}

	// The handlers' panics reach the informer's policy; restored after
	// stop (deferred below, so it runs first), once no handler runs.
	defer o.Handlers.AllowPanics()()
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	stop := sync.OnceFunc(func() { cancel(); wg.Wait() })
	defer stop()
	if o.Handlers.Any() {
		r.faults = handlerfault.New(runCtx, o.Handlers, handlerfault.Books{Stream: s, Ledger: r.led, Key: r.faultKey})
		r.faults.EndsWith(src.exhausted())
	}
	for i, c := range cs {
		if err := c.start(runCtx, &wg); err != nil {
			return nil, err
		}
		select {
		case <-infs[i].registered:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if r.faults != nil && o.Handlers.Blocks > 0 {
		// After the controller's handler, as a second controller or an
		// event recorder registers on a shared informer.
		if _, err := base.AddEventHandler(r.faults.Blocker()); err != nil {
			return nil, err
		}
	}
	depth := func() int64 {
		var n int64
		for _, c := range cs {
			n += int64(c.depth())
		}
		return n
	}
	// The profiles cover the measured phase: from the release of the live
	// stream (with the initial list, for a restart) to the drain.
	stopProfiles := func() error { return nil }
	if o.Restart {
		if stopProfiles, err = o.Profiles.Start(); err != nil {
			return nil, err
		}
		src.release()
		r.setMeasuring(true)
	}
	snap0, cpu0 := metrics.ReadSnapshot(), cpuTime()
	sampler := metrics.StartSampler(nil, depth, func() int64 { return r.sum(func(c *run) int64 { return c.led.Uncovered() }) })
	t0 := time.Now()
	wg.Go(func() { base.RunWithContext(runCtx) })
	synced := func() bool { return r.syncedAtAll() != 0 || s.Config.Objects == 0 }
	caughtUp := synced
	if r.faults != nil {
		caughtUp = func() bool { return synced() && r.faults.CaughtUp() }
	}
	if !o.Restart {
		if res.Stalled = r.drain(ctx, nil, synced, src); !res.Stalled {
			res.Sync = time.Since(t0)
			if stopProfiles, err = o.Profiles.Start(); err != nil {
				return nil, err
			}
			snap0, cpu0 = metrics.ReadSnapshot(), cpuTime()
			r.setMeasuring(true)
			t0 = time.Now()
			src.release()
		}
	}
	if !res.Stalled {
		res.Stalled = r.drain(ctx, src.exhausted(), caughtUp, src)
		if !res.Stalled {
			res.Converge = time.Duration(r.now()) - src.exhaustedAt()
		}
	}
	res.Duration = time.Since(t0)
	if at := r.syncedAtAll(); o.Restart && at != 0 {
		res.Sync = time.Duration(at-1) - t0.Sub(r.base)
	}
	r.setMeasuring(false)
	heapPeak, peaks := sampler.Stop()
	if err := stopProfiles(); err != nil {
		return nil, err
	}
	usage, cpu := metrics.ReadSnapshot().Since(snap0), cpuTime()-cpu0
	res.Events = int64(s.Stats.Adds + s.Stats.Updates + s.Stats.Deletes - s.Stats.MissedDeletes + s.Stats.Tombstones)
	res.Reconciles = r.sum(func(c *run) int64 { return c.reconciles.Load() })
	if sec := res.Duration.Seconds(); sec > 0 {
		res.ReconcilesPerSec = float64(res.Reconciles) / sec
		res.EventsPerSec = float64(res.Events) / sec
	}
	if res.Reconciles > 0 {
		res.CPUPerReconcile = cpu / time.Duration(res.Reconciles)
	}
	res.PeakDepth, res.PeakPending = peaks[0], peaks[1]
	res.PeakHeap = sub(heapPeak, heap0)
	res.PeakRSS, _ = metrics.PeakRSS()
	stored := len(base.GetIndexer().ListKeys())
	if stored > 0 {
		res.HeapPerObject = float64(sub(metrics.LiveHeap(), heap0)) / float64(stored)
	}
	res.GCCPUFraction = usage.GCCPUFraction
	res.Source = src.stats()
	expect := r.expect(base.GetIndexer(), res.Source, src.collapsed())
	stop()
	runtime.KeepAlive(base)
	if r.faults != nil {
		r.faults.CheckFinal()
	}
	lat, stale := metrics.NewLatency(), metrics.NewLatency()
	for _, c := range r.all() {
		for _, l := range c.allLats {
			lat.Merge(l)
		}
		stale.Merge(c.stale)
	}
	res.Latency, res.Staleness = lat.Quantiles(), stale.Quantiles()
	res.ProcessErrors = r.sum(func(c *run) int64 { return c.procErrs.Load() })
	res.Skipped = r.led.Skipped()
	res.Violations = r.verify(expect)
	if o.Converge > 0 && res.Converge > o.Converge {
		res.Violations = append(res.Violations, account.Late(res.Converge, o.Converge))
	}
	return res, ctx.Err()
}

// verify checks every controller's books against expect, the shared store
// once (in the first controller's), and names the controller of each
// violation when there are several.
func (r *run) verify(expect account.Expect) []account.Violation {
	if len(r.fleet) == 1 {
		return r.led.Verify(expect)
	}
	var out []account.Violation
	for _, c := range r.all() {
		e := expect
		e.Name = func(k int) string { return c.name + ": " + r.objs.Key(k) }
		out = append(out, c.led.Verify(e)...)
		expect.Truth = nil // the store is shared: checked once
	}
	return out
}

// expect is what Verify checks: the informer's store equals the stream's
// truth, every key's newest change was reconciled, every delete reached
// the handler, and no key was notified at a version the store held more
// often than the source's relists and resyncs allow.
func (r *run) expect(idx cache.Indexer, src watchsrc.Stats, collapsed bool) account.Expect {
	stored := map[int]uint64{}
	var foreign []string
	for _, obj := range idx.List() {
		k, rv, ok := r.keyRV(obj)
		if !ok {
			key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			foreign = append(foreign, key)
			continue
		}
		stored[k] = rv
	}
	return account.Expect{Name: r.objs.Key, Truth: r.stream.Final, Stored: stored, Foreign: foreign, Reconciled: true, Deletes: true,
		Renotify: int(max(src.Lists-1, 0) + src.Resyncs), Collapsed: collapsed}
}

// drain waits until the stream is exhausted (nil: nothing to wait for),
// ready holds and every controller reconciled every emitted change, by the
// same stall rule as the load pipelines (account.Ledger.Drain), ledger
// after ledger; progress anywhere counts for each, and src may raise the
// stall timeout while it waits on something it caused (patience) or let
// deletions a relist merged away go (collapsed).
func (r *run) drain(ctx context.Context, exhausted <-chan struct{}, ready func() bool, src feed) (stalled bool) {
	progress := func() int64 { return r.sum(func(c *run) int64 { return c.progress.Load() }) }
	for _, c := range r.all() {
		if c.led.Drain(ctx, account.DrainOptions{Exhausted: exhausted, Ready: ready, Progress: progress, Stall: r.o.Stall,
			Longer: src.patience, Collapsed: src.collapsed}) {
			return true
		}
	}
	return false
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// spin burns d of CPU, standing in for a reconcile's own work.
func spin(d time.Duration) {
	if d <= 0 {
		return
	}
	for t := time.Now(); time.Since(t) < d; {
	}
}

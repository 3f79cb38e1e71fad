package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// SeqAnnotation carries, on every Pod written through an API server, the
// stream's resourceVersion for that change: the API server assigns its
// own resourceVersions, so the books key on this instead.
const SeqAnnotation = "queuelab.io/seq"

// runLabel marks one run's Pods, so the informer of a run never sees
// another run's objects on a shared API server.
const runLabel = "queuelab.io/run"

// apiWriters is how many goroutines write through the clientset; changes
// of one key always go through the same one, in stream order.
const apiWriters = 8

// Outage takes the API server away once during a RunAPI run, the way a
// control-plane upgrade or a crash does: after After of the stream's live
// writes were accepted, Interrupt runs while the writers keep writing.
// Every write that fails because the server is going, gone or not ready
// yet (a transport error, 429 or 5xx) is retried with backoff until the
// server accepts it, so no change is lost and the books stay exact; the
// informers must notice the broken watch and list or watch again on their
// own. A retried Create that finds its object, or a retried Delete that
// finds it gone, was accepted before the connection broke.
type Outage struct {
	// After is the fraction of live writes accepted first, in [0, 1).
	After float64
	// Interrupt stops the API server, keeps it down and starts it again
	// on the same address and storage; it returns once the server serves,
	// or the error that it will not (which ends the run with that error).
	Interrupt func(ctx context.Context) error
}

func (o *Outage) validate() error {
	switch {
	case o == nil:
		return nil
	case o.After < 0 || o.After >= 1:
		return gen.Fieldf("restart-after", "must be in [0, 1), got %g", o.After)
	case o.Interrupt == nil:
		return gen.Fieldf("restart-after", "an outage needs an Interrupt")
	}
	return nil
}

// outageStall is how long a run may go without progress once its outage
// began: a Reflector whose watch broke backs off up to 30 s between
// attempts while the server is away (client-go's 800 ms doubling), and an
// API server takes seconds to start.
const outageStall = 2 * time.Minute

// Write retries back off from retryMin, doubling to retryMax.
const retryMin, retryMax = 20 * time.Millisecond, time.Second

// RunAPI is Run against a real API server: the stream's changes are
// written through client (Create, a merge Patch of SeqAnnotation, Delete)
// and the controller's informer lists and watches Pods over HTTP. The
// controllers are the same. Streams with relists or missed deletes cannot
// be replayed (the API server decides when a watch expires); run names
// this run's namespaces and label, which must be new on the server.
func RunAPI(ctx context.Context, client kubernetes.Interface, run string, st Style, sk Stack, s *gen.Stream, objs *gen.Objects, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Controllers > 1 {
		return nil, gen.Fieldf("controllers", "an API server run has one controller, got %d", o.Controllers)
	}
	if o.Handlers.Any() {
		return nil, gen.Fieldf("handler-panics", "handler faults run offline (Run), not against an API server")
	}
	if s.Stats.Relists > 0 || s.Stats.MissedDeletes > 0 || s.Stats.Resyncs > 0 || s.Stats.Disconnects > 0 {
		return nil, errors.New("controller: an API server replays only object events: no relists, missed deletes, resyncs or disconnects")
	}
	r := newRun(s, objs, o)
	r.version = func(m metav1.Object) (uint64, bool) {
		v, err := strconv.ParseUint(m.GetAnnotations()[SeqAnnotation], 10, 64)
		return v, err == nil
	}
	// A failed outage (the server does not come back) cancels the run
	// with its error rather than letting writers retry forever.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	f := &apiFeed{r: r, client: client, run: run, ctx: ctx, fail: cancel, done: make(chan struct{})}
	if err := f.prepare(ctx); err != nil {
		return nil, err
	}
	res, err := r.drive(ctx, st, sk, f)
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return nil, cause
	}
	if res != nil {
		res.WriteRetries, res.Outage = f.retries.Load(), time.Duration(f.outage.Load())
	}
	return res, err
}

// apiFeed writes a stream through a clientset.
type apiFeed struct {
	r      *run
	client kubernetes.Interface
	run    string
	ctx    context.Context
	fail   context.CancelCauseFunc
	once   sync.Once
	done   chan struct{}
	// endedAt is when the last live write was accepted and the outage
	// was over (run clock, ns).
	endedAt atomic.Int64
	// accepted counts live writes accepted; the outage starts at
	// outageAt of them. outageBegan is set once it started, outage is how
	// long Interrupt took (ns) and retries counts retried writes.
	accepted    atomic.Int64
	outageAt    int64
	outageOnce  sync.Once
	outageWG    sync.WaitGroup
	outageBegan atomic.Bool
	outage      atomic.Int64
	retries     atomic.Int64
	// lists counts the informer's lists (List calls and watches asking
	// for the initial events, WatchList's list), watches its watches.
	lists, watches atomic.Int64
}

func (f *apiFeed) namespace(k int) string { return f.run + "-" + f.r.objs.Namespace(k) }

// pod is key k's Pod at stream version v.
func (f *apiFeed) pod(k int, v uint64) *corev1.Pod {
	p := f.r.objs.Build(k, v)
	p.Namespace, p.ResourceVersion = f.namespace(k), ""
	p.Labels = maps.Clone(p.Labels)
	p.Labels[runLabel] = f.run
	p.Annotations[SeqAnnotation] = strconv.FormatUint(v, 10)
	p.Spec.Containers = []corev1.Container{{Name: "c", Image: "queuelab.invalid/none"}}
	return p
}

// prepare creates the namespaces and the initial objects, booked as the
// initial list is offline.
func (f *apiFeed) prepare(ctx context.Context) error {
	seen := map[string]bool{}
	for k := range f.r.stream.Config.Namespaces {
		ns := f.namespace(k)
		if seen[ns] {
			continue
		}
		seen[ns] = true
		if _, err := f.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("controller: creating namespace %s: %w", ns, err)
		}
	}
	return f.write(ctx, func(emit func(gen.Event)) {
		for k := range f.r.stream.Config.Objects {
			emit(gen.Event{Key: uint32(k), RV: uint64(k + 1), Kind: gen.Added})
		}
	}, false)
}

// write applies the events produce emits through apiWriters writers, and
// returns the first error. live events are stamped for staleness.
func (f *apiFeed) write(ctx context.Context, produce func(emit func(gen.Event)), live bool) error {
	var (
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	chans := make([]chan gen.Event, apiWriters)
	for i := range chans {
		chans[i] = make(chan gen.Event, 64)
		wg.Go(func() {
			for e := range chans[i] {
				if err := f.apply(ctx, e, live); err != nil {
					f.r.procErrs.Add(1)
					errMu.Lock()
					first = cmpErr(first, err)
					errMu.Unlock()
				} else if live && f.accepted.Add(1) == f.outageAt {
					f.interrupt()
				}
			}
		})
	}
	produce(func(e gen.Event) { chans[int(e.Key)%apiWriters] <- e })
	for _, c := range chans {
		close(c)
	}
	wg.Wait()
	return first
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// interrupt starts the outage (once) beside the writers.
func (f *apiFeed) interrupt() {
	o := f.r.o.Outage
	f.outageOnce.Do(func() {
		f.outageBegan.Store(true)
		f.outageWG.Go(func() {
			t := time.Now()
			err := o.Interrupt(f.ctx)
			f.outage.Store(int64(time.Since(t)))
			if err != nil {
				f.fail(fmt.Errorf("controller: API server outage: %w", err))
			}
		})
	})
}

// apply books one change in the ledger, then writes it, retrying while
// the server is away (see Outage).
func (f *apiFeed) apply(ctx context.Context, e gen.Event, live bool) error {
	k, now := int(e.Key), f.r.now()
	if live {
		f.r.onEmit(k, e.RV, now)
	}
	f.r.led.Emit(k, e.RV, e.Kind == gen.Deleted, now)
	pods := f.client.CoreV1().Pods(f.namespace(k))
	name := f.r.objs.Build(k, 0).Name
	wait := retryMin
	for retried := false; ; retried = true {
		var err error
		switch e.Kind {
		case gen.Added:
			_, err = pods.Create(ctx, f.pod(k, e.RV), metav1.CreateOptions{})
			if retried && apierrors.IsAlreadyExists(err) {
				err = nil // an earlier attempt landed
			}
		case gen.Modified:
			patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, SeqAnnotation, strconv.FormatUint(e.RV, 10))
			_, err = pods.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		case gen.Deleted:
			err = pods.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
			if retried && apierrors.IsNotFound(err) {
				err = nil
			}
		}
		if err == nil || !retryable(err) || ctx.Err() != nil {
			return err
		}
		f.retries.Add(1)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait = min(2*wait, retryMax)
	}
}

// retryable reports whether a write's error may not be the server's
// verdict on it: a transport error (the connection refused or broken), a
// 429 or a 5xx (a server shutting down or starting). A retried Patch
// applies the same annotation again, which changes nothing.
func retryable(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return true
	}
	c := st.Status().Code
	return c == 429 || c >= 500
}

// listerWatcher lists and watches this run's Pods in every namespace, the
// way client-go's informer factory builds its ListWatch, passing on
// whether the client speaks WatchList (the fake clientset does not).
func (f *apiFeed) listerWatcher() cache.ListerWatcher {
	pods := f.client.CoreV1().Pods(metav1.NamespaceAll)
	sel := runLabel + "=" + f.run
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = sel
			f.lists.Add(1)
			return pods.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = sel
			if o.SendInitialEvents != nil && *o.SendInitialEvents {
				f.lists.Add(1)
			}
			f.watches.Add(1)
			return pods.Watch(ctx, o)
		},
	}, f.client)
}

// release writes the stream's object events on the run's schedule.
func (f *apiFeed) release() {
	f.once.Do(func() {
		go func() {
			defer close(f.done)
			pacer := gen.NewPacer(f.r.o.Schedule, time.Now())
			stop := make(chan struct{})
			live := 0
			for _, e := range f.r.stream.Events {
				if e.Kind.IsObject() {
					live++
				}
			}
			if o := f.r.o.Outage; o != nil {
				f.outageAt = max(1, int64(o.After*float64(live)))
			}
			_ = f.write(f.ctx, func(emit func(gen.Event)) {
				i := 0
				for _, e := range f.r.stream.Events {
					if !e.Kind.IsObject() {
						continue
					}
					pacer.Wait(i, stop)
					i++
					emit(e)
				}
			}, true)
			f.outageWG.Wait()
			f.endedAt.Store(f.r.now())
		}()
	})
}

func (f *apiFeed) exhausted() <-chan struct{} { return f.done }
func (f *apiFeed) exhaustedAt() time.Duration { return time.Duration(f.endedAt.Load()) }

// collapsed: the API server made the informer list again ("410 Gone"
// after a restart), so deletions and re-creations between its last watch
// event and that list reach it as updates.
func (f *apiFeed) collapsed() bool { return f.lists.Load() > 1 }

func (f *apiFeed) stats() watchsrc.Stats {
	return watchsrc.Stats{Lists: f.lists.Load(), Watches: f.watches.Load()}
}
func (f *apiFeed) patience() time.Duration {
	if f.outageBegan.Load() {
		return outageStall
	}
	return 0
}

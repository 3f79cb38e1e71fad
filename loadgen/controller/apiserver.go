package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
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
	if s.Stats.Relists > 0 || s.Stats.MissedDeletes > 0 || s.Stats.Resyncs > 0 || s.Stats.Disconnects > 0 {
		return nil, errors.New("controller: an API server replays only object events: no relists, missed deletes, resyncs or disconnects")
	}
	r := newRun(s, objs, o)
	r.version = func(m metav1.Object) (uint64, bool) {
		v, err := strconv.ParseUint(m.GetAnnotations()[SeqAnnotation], 10, 64)
		return v, err == nil
	}
	f := &apiFeed{r: r, client: client, run: run, done: make(chan struct{})}
	if err := f.prepare(ctx); err != nil {
		return nil, err
	}
	return r.drive(ctx, st, sk, f)
}

// apiFeed writes a stream through a clientset.
type apiFeed struct {
	r      *run
	client kubernetes.Interface
	run    string
	once   sync.Once
	done   chan struct{}
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

// apply books one change in the ledger, then writes it.
func (f *apiFeed) apply(ctx context.Context, e gen.Event, live bool) error {
	k, now := int(e.Key), f.r.now()
	if live {
		f.r.onEmit(k, e.RV, now)
	}
	f.r.led.Emit(k, e.RV, e.Kind == gen.Deleted, now)
	pods := f.client.CoreV1().Pods(f.namespace(k))
	name := f.r.objs.Build(k, 0).Name
	var err error
	switch e.Kind {
	case gen.Added:
		_, err = pods.Create(ctx, f.pod(k, e.RV), metav1.CreateOptions{})
	case gen.Modified:
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, SeqAnnotation, strconv.FormatUint(e.RV, 10))
		_, err = pods.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	case gen.Deleted:
		err = pods.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	}
	return err
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
			return pods.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = sel
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
			_ = f.write(context.Background(), func(emit func(gen.Event)) {
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
		}()
	})
}

func (f *apiFeed) exhausted() <-chan struct{} { return f.done }
func (f *apiFeed) stats() watchsrc.Stats      { return watchsrc.Stats{} }

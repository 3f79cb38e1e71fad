package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/queuelab/queuelab/informer"
	labregistry "github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/loadgen/internal/named"
	"github.com/queuelab/queuelab/queues/priorityq"
	"github.com/queuelab/queuelab/queues/workq"
	"github.com/queuelab/queuelab/stores"
)

// Informer is what both controller styles use of an informer: the
// controller-runtime Informer surface (which client-go's
// SharedIndexInformer has), the indexer listers read, and Run. Any
// cache.SharedIndexInformer is one, so a drop-in informer plugs in as is.
type Informer interface {
	crcache.Informer
	GetIndexer() cache.Indexer
	RunWithContext(ctx context.Context)
}

var _ Informer = cache.SharedIndexInformer(nil)

// NewInformer builds an informer over lw for Pods with indexers.
type NewInformer func(lw cache.ListerWatcher, indexers cache.Indexers) (Informer, error)

// InformerEntry is one informer kind.
type InformerEntry struct {
	Name, Doc string
	New       NewInformer
}

// Informers lists the informer kinds, client-go's first: its
// SharedIndexInformer; the lab's drop-in SharedIndexInformer (informer)
// with its defaults ("informer") and with the lock-free store
// ("informer-lockfree"), the names earlier results use; then the drop-in
// over every store and FIFO of the lab registry, named <store>+<fifo>
// (labregistry.Informers).
func Informers() []InformerEntry {
	out := []InformerEntry{{
		Name: labregistry.Baseline,
		Doc:  "client-go cache.NewSharedIndexInformerWithOptions: RealFIFO, threadSafeMap, one processorListener per handler",
		New: func(lw cache.ListerWatcher, idx cache.Indexers) (Informer, error) {
			return cache.NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, cache.SharedIndexInformerOptions{Indexers: idx}), nil
		},
	}}
	for _, d := range []struct {
		name, doc string
		opts      informer.Options
	}{
		{"informer", "lab drop-in informer.NewSharedIndexInformer, informer.Options{}: in-order mutex FIFO, snapshot store", informer.Options{}},
		{"informer-lockfree", "lab drop-in informer.NewSharedIndexInformer: in-order mutex FIFO, lockfree store", informer.Options{Store: informer.StoreOf(stores.NewLockFree, stores.Options{})}},
	} {
		out = append(out, InformerEntry{Name: d.name, Doc: d.doc, New: func(lw cache.ListerWatcher, idx cache.Indexers) (Informer, error) {
			o := d.opts
			o.Indexers = idx
			return informer.NewSharedIndexInformer(lw, &corev1.Pod{}, o)
		}})
	}
	for _, e := range labregistry.Informers() {
		if e.Name == labregistry.Baseline {
			continue // listed first
		}
		out = append(out, InformerEntry{Name: e.Name, Doc: "lab drop-in informer: " + e.Doc, New: func(lw cache.ListerWatcher, idx cache.Indexers) (Informer, error) {
			return e.New(lw, &corev1.Pod{}, cache.SharedIndexInformerOptions{Indexers: idx}), nil
		}})
	}
	return out
}

// NewQueue builds a controller's rate-limited work queue for items of type
// T, with controller-runtime's Options.NewQueue signature so one entry
// serves both controller styles.
type NewQueue[T comparable] func(name string, limiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T]

// QueueEntry is one work queue kind.
type QueueEntry[T comparable] struct {
	Name, Doc string
	New       NewQueue[T]
}

// PriorityQueueName is controller-runtime's priority queue, the default
// queue of a controller-runtime controller and that style's baseline.
const PriorityQueueName = "priorityqueue"

// getYields are the Get-yield policies each lab priority queue is listed
// under: pq-<impl> is the package's default, pq-<impl>-yield<policy> an
// explicit one that keeps its meaning when the default changes, so a scenario can run one queue under each policy side by side and
// measure what yielding before every Get costs or saves (priorityq.GetYield).
var getYields = []struct {
	suffix, doc string
	policy      priorityq.GetYield
}{
	{"", "", priorityq.GetYieldDefault},
	{"-yieldon", ", Get yields before every pop (GetYieldOn)", priorityq.GetYieldOn},
	{"-yieldoff", ", Get never yields (GetYieldOff)", priorityq.GetYieldOff},
}

// Queues lists the queue kinds: client-go's rate-limiting queue,
// controller-runtime's priority queue, every lab priority queue under each
// Get-yield policy (getYields), and every lab base queue of the workq
// registry under the lab's rate-limiting layer.
func Queues[T comparable]() []QueueEntry[T] {
	out := []QueueEntry[T]{
		{
			Name: labregistry.Baseline,
			Doc:  "client-go workqueue.NewTypedRateLimitingQueueWithConfig",
			New: func(name string, l workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
				return workqueue.NewTypedRateLimitingQueueWithConfig(l, workqueue.TypedRateLimitingQueueConfig[T]{Name: name})
			},
		},
		{
			Name: PriorityQueueName,
			Doc:  "controller-runtime priorityqueue.New (the default of controller-runtime controllers)",
			New: func(name string, l workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
				return priorityqueue.New(name, func(o *priorityqueue.Opts[T]) { o.RateLimiter = l })
			},
		},
	}
	for _, e := range labregistry.PriorityQueues[T]() {
		if e.Name == labregistry.PriorityBaseline {
			continue // controller-runtime's, listed above
		}
		for _, y := range getYields {
			out = append(out, QueueEntry[T]{
				Name: "pq-" + e.Name + y.suffix,
				Doc:  "lab priority queue priorityq " + e.Name + " (keeps controller-runtime's priorities)" + y.doc,
				New: func(name string, l workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
					return labregistry.Must(e.New(priorityq.Options[T]{Name: name, RateLimiter: l, GetYield: y.policy}))
				},
			})
		}
	}
	for _, e := range labregistry.WorkQueues[T]() {
		if e.Name == labregistry.Baseline {
			continue // the first entry is client-go's queue already
		}
		out = append(out, QueueEntry[T]{
			Name: e.Name,
			Doc:  "lab workq " + e.Name + " under workq.NewRateLimiting",
			New: func(_ string, l workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
				return labregistry.Must(workq.NewRateLimiting(e.New(), l, workq.LayerOptions{}))
			},
		})
	}
	return out
}

// Style is a controller's shape.
type Style string

// The controller styles.
const (
	ClientGo    Style = "clientgo"
	CtrlRuntime Style = "ctrlruntime"
)

// Styles lists the styles in presentation order.
var Styles = []Style{ClientGo, CtrlRuntime}

// Stack is one informer kind × one queue kind, named "<informer>+<queue>".
type Stack struct {
	Informer string
	Queue    string
}

// Name is the stack's impl= value.
func (s Stack) Name() string { return s.Informer + "+" + s.Queue }

// Baseline is the stack a controller of style st gets by default.
func Baseline(st Style) Stack {
	if st == CtrlRuntime {
		return Stack{Informer: labregistry.Baseline, Queue: PriorityQueueName}
	}
	return Stack{Informer: labregistry.Baseline, Queue: labregistry.Baseline}
}

// ParseStacks resolves "informer/queue" pairs, comma-separated, against the
// registries; "baseline" stands for the style's default stack.
func ParseStacks(st Style, spec string) ([]Stack, error) {
	var out []Stack
	informers, queues := informerNames(), queueNames()
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "baseline" {
			out = append(out, Baseline(st))
			continue
		}
		inf, q, ok := strings.Cut(part, "/")
		switch {
		case !ok:
			return nil, fmt.Errorf("controller stack %q: want <informer>/<queue> or baseline", part)
		case !slices.Contains(informers, inf):
			return nil, fmt.Errorf("controller stack %q: unknown informer %q (known: %s)", part, inf, strings.Join(informers, ", "))
		case !slices.Contains(queues, q):
			return nil, fmt.Errorf("controller stack %q: unknown queue %q (known: %s)", part, q, strings.Join(queues, ", "))
		}
		s := Stack{Informer: inf, Queue: q}
		if slices.Contains(out, s) {
			return nil, fmt.Errorf("controller stack %q selected twice", part)
		}
		out = append(out, s)
	}
	return out, nil
}

func informerNames() []string { return named.Names(Informers(), InformerEntry.name) }

func queueNames() []string { return named.Names(Queues[string](), QueueEntry[string].name) }

func lookupInformer(name string) (InformerEntry, error) {
	return named.Lookup("informer", Informers(), InformerEntry.name, name)
}

func lookupQueue[T comparable](name string) (QueueEntry[T], error) {
	return named.Lookup("queue", Queues[T](), QueueEntry[T].name, name)
}

func (e InformerEntry) name() string { return e.Name }

func (e QueueEntry[T]) name() string { return e.Name }

package badinput

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer/informertest"
	"github.com/queuelab/queuelab/internal/lab/registry"
)

// newInformerFunc is the lab registry's informer constructor.
type newInformerFunc = func(cache.ListerWatcher, runtime.Object, cache.SharedIndexInformerOptions) cache.SharedIndexInformer

// informerEntry is one entry of the lab registry's Informers.
type informerEntry = registry.Entry[newInformerFunc, informertest.Guarantees]

// informerImpls is the lab registry's Informers, client-go's first.
func informerImpls() []impl[informerEntry] { return entries(registry.Informers(), registry.Baseline) }

func appIndex(obj any) ([]string, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	return []string{m.GetLabels()["app"]}, nil
}

// newInformer builds an informer over a source holding one pod, indexed by
// app.
func newInformer(n newInformerFunc) cache.SharedIndexInformer {
	src := informertest.NewSource(informertest.Pod("ns", "a", "x"))
	return n(src.ListerWatcher(), &corev1.Pod{}, cache.SharedIndexInformerOptions{Indexers: cache.Indexers{"app": appIndex}})
}

// stopped runs inf until it has synced, then stops it and waits for Run to
// return.
func stopped(inf cache.SharedIndexInformer) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(stop)
	}()
	cache.WaitForCacheSync(stop, inf.HasSynced)
	close(stop)
	<-done
}

func indexers(inf cache.SharedIndexInformer) string {
	var names []string
	for n := range inf.GetIndexer().GetIndexers() {
		names = append(names, n)
	}
	return fmt.Sprint(names)
}

// errorSaying describes err, which must contain want.
func errorSaying(err error, want string) string {
	switch {
	case err == nil:
		return "accepted"
	case !strings.Contains(err.Error(), want):
		return "error: " + err.Error()
	}
	return "error saying " + want
}

// refusedAddIndexers is a row in which AddIndexers(add) must fail with an
// error saying want and leave the informer's indexers as they were; with
// stop, the informer has stopped first.
func refusedAddIndexers(name, want string, stop bool, add cache.Indexers) badCase[informerEntry] {
	return badCase[informerEntry]{
		name:     name,
		upstream: "error saying " + want + "; indexers [app]",
		probe: func(t *testing.T, e informerEntry) string {
			inf := newInformer(e.New)
			if stop {
				stopped(inf)
			}
			return errorSaying(inf.AddIndexers(add), want) + "; indexers " + indexers(inf)
		},
	}
}

var informerCases = []badCase[informerEntry]{
	refusedAddIndexers("conflicting AddIndexers", "indexer conflict", false,
		cache.Indexers{"app": appIndex, "other": appIndex}),
	refusedAddIndexers("AddIndexers after the informer stopped", "stopped already", true,
		cache.Indexers{"other": appIndex}),
	{
		name:     "AddEventHandler after the informer stopped",
		upstream: "error saying stopped already",
		probe: func(t *testing.T, e informerEntry) string {
			inf := newInformer(e.New)
			stopped(inf)
			_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
			return errorSaying(err, "stopped already")
		},
	},
	{
		name:     "SetTransform and SetWatchErrorHandler after start",
		upstream: "error saying informer has already started",
		probe: func(t *testing.T, e informerEntry) string {
			inf := newInformer(e.New)
			stopped(inf)
			e1 := inf.SetTransform(func(obj any) (any, error) { return obj, nil })
			e2 := inf.SetWatchErrorHandler(func(*cache.Reflector, error) {})
			if r1, r2 := errorSaying(e1, "already started"), errorSaying(e2, "already started"); r1 != r2 {
				return "SetTransform: " + r1 + "; SetWatchErrorHandler: " + r2
			}
			return errorSaying(e1, "informer has already started")
		},
	},
}

func informerFamily() family {
	return describe("Informers (informer; client-go cache.NewSharedIndexInformerWithOptions)", informerCases, informerImpls())
}

func TestInformerBadInput(t *testing.T) { runCases(t, informerCases, informerImpls()) }

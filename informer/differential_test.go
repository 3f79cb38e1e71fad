package informer_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
	"github.com/queuelab/queuelab/queues/registry"
)

// newFrom adapts a registry entry to the suite's constructor.
func newFrom(e registry.Entry[informer.New, informer.Guarantees]) informertest.NewInformer {
	return func(_ *testing.T, lw cache.ListerWatcher, obj runtime.Object, o cache.SharedIndexInformerOptions) cache.SharedIndexInformer {
		return e.New(lw, obj, o)
	}
}

// TestDifferential replays seeded histories against every drop-in and
// client-go's informer side by side.
func TestDifferential(t *testing.T) {
	for _, e := range informer.Impls() {
		if e.Name == registry.Baseline {
			continue
		}
		t.Run("impl="+e.Name, func(t *testing.T) { informertest.RunDifferential(t, newFrom(e), 1, 8) })
	}
}

// FuzzDifferential searches seeds for a history on which the default
// informer and client-go's disagree.
func FuzzDifferential(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(seed)
	}
	e, err := informer.Impls().Lookup("mutex+" + informer.DefaultFIFO)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { informertest.Differential(t, newFrom(e), seed) })
}

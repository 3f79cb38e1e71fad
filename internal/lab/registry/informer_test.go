package registry_test

import (
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/informer/informertest"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/lab/registry/registrytest"
	"github.com/queuelab/queuelab/internal/suite"
)

// informerSuiteNew adapts an Informers entry to the suite's constructor.
func informerSuiteNew(newInformer func(cache.ListerWatcher, runtime.Object, cache.SharedIndexInformerOptions) cache.SharedIndexInformer) informertest.NewInformer {
	return func(_ *testing.T, lw cache.ListerWatcher, obj runtime.Object, o cache.SharedIndexInformerOptions) cache.SharedIndexInformer {
		return newInformer(lw, obj, o)
	}
}

// TestInformers holds client-go's informer and every store × FIFO
// combination to the informer suite, each by what it declares.
func TestInformers(t *testing.T) {
	for _, e := range registry.Informers() {
		t.Run("impl="+e.Name, func(t *testing.T) { informertest.Run(t, informerSuiteNew(e.New), e.Guarantees) })
	}
}

// TestInformerDiff replays seeded histories, then every committed op file
// (testdata/diff/informer), on every informer and client-go's side by
// side.
func TestInformerDiff(t *testing.T) {
	names, files := suite.OpFiles(t, "testdata/diff/informer")
	for _, e := range registry.Informers() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			for seed := range uint64(2) {
				t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
					informertest.Diff(t, informerSuiteNew(e.New), e.Guarantees, informertest.SeedOps(seed))
				})
			}
			for _, name := range names {
				t.Run("file="+name, func(t *testing.T) {
					informertest.Diff(t, informerSuiteNew(e.New), e.Guarantees, files[name])
				})
			}
		})
	}
}

// TestInformerFIFOsGuarantees pins each FIFO's declared order: the suite
// checks only per-key order where a FIFO declares per-shard order, so a
// wrong declaration would silently weaken it.
func TestInformerFIFOsGuarantees(t *testing.T) {
	fifo := informertest.Guarantees{Order: guarantee.OrderFIFO}
	registrytest.CheckGuarantees(t, registry.InformerFIFOs(), map[string]informertest.Guarantees{
		"realfifo": fifo, "inorder-clientgo-nonatomic": fifo, "inorder-mutex": fifo, "inorder-lockfree": fifo,
		"deltafifo-clientgo": fifo, "deltafifo-mutex": fifo,
	})
}

package informer_test

import (
	"strconv"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/stores"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newWith adapts Options to the suite's constructor.
func newWith(opts informer.Options) informertest.NewInformer {
	return func(t *testing.T, lw cache.ListerWatcher, obj runtime.Object, o cache.SharedIndexInformerOptions) cache.SharedIndexInformer {
		opts.SharedIndexInformerOptions = o
		inf, err := informer.NewSharedIndexInformer(lw, obj, opts)
		if err != nil {
			t.Fatal(err)
		}
		return inf
	}
}

// shapes are one informer of each kind of part, with what it declares:
// the default, client-go's RealFIFO and store, the lock-free FIFO and
// store, a sharded DeltaFIFO (per-shard order), and the default with
// RecoverHandlerPanics. The lab registry (internal/lab/registry) runs the
// suite over every store × FIFO combination.
var shapes = []struct {
	name string
	opts informer.Options
	g    informertest.Guarantees
}{
	{"default", informer.Options{}, informertest.Guarantees{}},
	{"realfifo+clientgo-store", informer.Options{FIFO: informer.RealFIFO(), Store: informer.ClientGoStore()}, informertest.Guarantees{}},
	{"inorder-lockfree+lockfree", informer.Options{
		FIFO:  informer.InOrderFIFO(inorder.NewLockFree, inorder.Options{BatchSize: 16}),
		Store: informer.StoreOf(stores.NewLockFree, stores.Options{}),
	}, informertest.Guarantees{}},
	{"deltafifo-sharded+sharded", informer.Options{
		FIFO:  informer.DeltaFIFO(deltafifo.NewSharded, deltafifo.Options{Shards: 4}),
		Store: informer.StoreOf(stores.NewSharded, stores.Options{Shards: 4}),
	}, informertest.Guarantees{Order: guarantee.OrderPerShard}},
	{"default/recover-handler-panics", informer.Options{RecoverHandlerPanics: true}, informertest.Guarantees{Ext: true}},
}

// TestSharedIndexInformer holds each shape to the conformance suite.
func TestSharedIndexInformer(t *testing.T) {
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) { informertest.Run(t, newWith(s.opts), s.g) })
	}
}

// TestDiff replays seeded histories against each shape and client-go's
// informer side by side.
func TestDiff(t *testing.T) {
	for _, s := range shapes {
		for seed := range uint64(2) {
			t.Run(s.name+"/seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
				informertest.Diff(t, newWith(s.opts), s.g, informertest.SeedOps(seed))
			})
		}
	}
}

// FuzzDiff searches for a history on which the default informer and
// client-go's disagree.
func FuzzDiff(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(informertest.SeedOps(seed))
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		informertest.Diff(t, newWith(informer.Options{}), informertest.Guarantees{}, ops)
	})
}

package deltafifo_test

import (
	"testing"

	"github.com/queuelab/queuelab/guarantee"

	"go.uber.org/goleak"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/registry"
	"github.com/queuelab/queuelab/queues/registry/registrytest"

	"github.com/queuelab/queuelab/queues/deltafifo"
)

// The behaviour of every registered DeltaFIFO is pinned down by
// deltafifotest.RunDeltaFIFO (see conformance_test.go); this
// file covers what is specific to the package.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConstructorsRejectBadSettings(t *testing.T) {
	registrytest.CheckRejected(t, map[string]func() (any, error){
		"NewSharded with -1 shards":         func() (any, error) { return deltafifo.NewSharded(deltafifo.Options{Shards: -1}) },
		"NewRing with too many shards":      func() (any, error) { return deltafifo.NewRing(deltafifo.Options{Shards: 1 << 20}) },
		"NewRing with a negative ring size": func() (any, error) { return deltafifo.NewRing(deltafifo.Options{RingSize: -5}) },
		"NewMutex with shards":              func() (any, error) { return deltafifo.NewMutex(deltafifo.Options{Shards: 2}) },
	})
	if q, err := deltafifo.NewSharded(deltafifo.Options{Shards: 3}); err != nil || q == nil {
		t.Errorf("NewSharded with 3 shards (rounded up to 4): %v", err)
	}
}

func TestNameComesFromOptions(t *testing.T) {
	if n := registry.Must(deltafifo.NewMutex(deltafifo.Options{})).Name(); n != "DeltaFIFO" {
		t.Errorf("default name %q, want DeltaFIFO (as client-go)", n)
	}
	if n := registry.Must(deltafifo.NewMutex(deltafifo.Options{DeltaFIFOOptions: cache.DeltaFIFOOptions{Name: "pods"}})).Name(); n != "pods" {
		t.Errorf("name %q, want pods", n)
	}
}

func TestRegistryNamesAndGuarantees(t *testing.T) {
	if got := deltafifo.Impls.Names(); len(got) != 5 || got[0] != "clientgo" {
		t.Fatalf("registry %v: want clientgo first, then ours and the RealFIFO peer", got)
	}
	want := map[string]deltafifo.Guarantees{
		"clientgo":          {Order: guarantee.OrderFIFO},
		"mutex":             {Order: guarantee.OrderFIFO, Ext: true, Batch: true},
		"sharded":           {Order: guarantee.OrderPerShard, Ext: true, Batch: true},
		"ring":              {Order: guarantee.OrderFIFO, Ext: true, Batch: true},
		"clientgo-realfifo": {Order: guarantee.OrderFIFO, Peer: true},
	}
	registrytest.CheckGuarantees(t, deltafifo.Impls, want)
	for _, e := range deltafifo.Impls {
		if q := e.New(cache.DeltaFIFOOptions{}); q.HasSynced() {
			t.Errorf("%s: a new queue reports synced before anything was added", e.Name)
		}
	}
}

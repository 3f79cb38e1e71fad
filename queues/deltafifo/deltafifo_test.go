package deltafifo_test

import (
	"testing"

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
	if _, err := deltafifo.NewSharded(cache.DeltaFIFOOptions{}, -1); err == nil {
		t.Error("NewSharded with -1 shards succeeded")
	}
	if _, err := deltafifo.NewRing(cache.DeltaFIFOOptions{}, 1<<20, 0); err == nil {
		t.Error("NewRing with too many shards succeeded")
	}
	if _, err := deltafifo.NewRing(cache.DeltaFIFOOptions{}, 0, -5); err == nil {
		t.Error("NewRing with a negative ring size succeeded")
	}
	if q, err := deltafifo.NewSharded(cache.DeltaFIFOOptions{}, 3); err != nil || q == nil {
		t.Errorf("NewSharded with 3 shards (rounded up to 4): %v", err)
	}
}

func TestNameComesFromOptions(t *testing.T) {
	if n := deltafifo.NewMutex(cache.DeltaFIFOOptions{}).Name(); n != "DeltaFIFO" {
		t.Errorf("default name %q, want DeltaFIFO (as client-go)", n)
	}
	if n := deltafifo.NewMutex(cache.DeltaFIFOOptions{Name: "pods"}).Name(); n != "pods" {
		t.Errorf("name %q, want pods", n)
	}
}

func TestRegistryNamesAndGuarantees(t *testing.T) {
	if got := deltafifo.Impls.Names(); len(got) != 5 || got[0] != "clientgo" {
		t.Fatalf("registry %v: want clientgo first, then ours and the RealFIFO peer", got)
	}
	want := map[string]deltafifo.Guarantees{
		"clientgo":          {Order: registry.OrderFIFO},
		"mutex":             {Order: registry.OrderFIFO, Ext: true, Batch: true},
		"sharded":           {Order: registry.OrderPerShard, Ext: true, Batch: true},
		"ring":              {Order: registry.OrderFIFO, Ext: true, Batch: true},
		"clientgo-realfifo": {Order: registry.OrderFIFO, Peer: true},
	}
	registrytest.CheckGuarantees(t, deltafifo.Impls, want)
	for _, e := range deltafifo.Impls {
		if q := e.New(cache.DeltaFIFOOptions{}); q.HasSynced() {
			t.Errorf("%s: a new queue reports synced before anything was added", e.Name)
		}
	}
}

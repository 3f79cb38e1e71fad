package fifo_test

import (
	"testing"

	"github.com/queuelab/queuelab/guarantee"

	"go.uber.org/goleak"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/registry/registrytest"

	"github.com/queuelab/queuelab/queues/fifo"
)

// The behaviour of every registered FIFO is pinned down by
// fifotest.RunFIFO (see conformance_test.go); this file covers
// what is specific to the package.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConstructorsRejectBadSettings(t *testing.T) {
	registrytest.CheckRejected(t, map[string]func() (any, error){
		"NewSharded with -1 shards":         func() (any, error) { return fifo.NewSharded(fifo.Options{Shards: -1}) },
		"NewRing with a negative ring size": func() (any, error) { return fifo.NewRing(fifo.Options{RingSize: -5}) },
		"NewMutex with shards":              func() (any, error) { return fifo.NewMutex(fifo.Options{Shards: 4}) },
		"NewSharded with a ring size":       func() (any, error) { return fifo.NewSharded(fifo.Options{RingSize: 64}) },
	})
}

func TestRegistryNamesAndGuarantees(t *testing.T) {
	if got := fifo.Impls.Names(); len(got) != 4 || got[0] != "clientgo" {
		t.Fatalf("registry %v: want clientgo, then mutex, sharded, ring", got)
	}
	want := map[string]fifo.Guarantees{
		"clientgo": {Order: guarantee.OrderFIFO},
		"mutex":    {Order: guarantee.OrderFIFO, Ext: true},
		"sharded":  {Order: guarantee.OrderPerShard, Ext: true},
		"ring":     {Order: guarantee.OrderFIFO, Ext: true},
	}
	registrytest.CheckGuarantees(t, fifo.Impls, want)
	for _, e := range fifo.Impls {
		if q := e.New(cache.MetaNamespaceKeyFunc); q.HasSynced() {
			t.Errorf("%s: a new queue reports synced before anything was added", e.Name)
		}
	}
}

package registry_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/lab/registry/registrytest"
	"github.com/queuelab/queuelab/queues/deltafifo/deltafifotest"
)

type deltaFIFOEntry = registry.Entry[func(cache.DeltaFIFOOptions) cache.Queue, deltafifotest.Guarantees]

// newDeltaFIFO adapts a registry constructor to the suite's.
func newDeltaFIFO(e deltaFIFOEntry) deltafifotest.NewDeltaFIFO {
	return func(_ *testing.T, o cache.DeltaFIFOOptions) cache.Queue { return e.New(o) }
}

func TestDeltaFIFOsNamesAndGuarantees(t *testing.T) {
	l := registry.DeltaFIFOs()
	if got := l.Names(); len(got) != 5 || got[0] != registry.Baseline {
		t.Fatalf("registry %v: want clientgo first, then ours and the RealFIFO peer", got)
	}
	registrytest.CheckGuarantees(t, l, map[string]deltafifotest.Guarantees{
		"clientgo":          {Order: guarantee.OrderFIFO},
		"mutex":             {Order: guarantee.OrderFIFO, Ext: true, Batch: true},
		"sharded":           {Order: guarantee.OrderPerShard, Ext: true, Batch: true},
		"ring":              {Order: guarantee.OrderFIFO, Ext: true, Batch: true},
		"clientgo-realfifo": {Order: guarantee.OrderFIFO, Peer: true},
	})
	for _, e := range l {
		if q := e.New(cache.DeltaFIFOOptions{}); q.HasSynced() {
			t.Errorf("%s: a new queue reports synced before anything was added", e.Name)
		}
	}
}

// TestDeltaFIFOs runs the DeltaFIFO suite over every registered DeltaFIFO,
// client-go's included; peers (client-go's RealFIFO) declare they are not
// DeltaFIFOs and are skipped, visibly.
func TestDeltaFIFOs(t *testing.T) {
	for _, e := range registry.DeltaFIFOs() {
		t.Run("impl="+e.Name, func(t *testing.T) { deltafifotest.Run(t, newDeltaFIFO(e), e.Guarantees) })
	}
}

// TestDeltaFIFOsDiff replays seeded operation sequences and every committed
// op file of testdata/diff/deltafifo on every registered DeltaFIFO against
// client-go's (peers skipped).
func TestDeltaFIFOsDiff(t *testing.T) {
	diffFamily(t, registry.DeltaFIFOs(), "testdata/diff/deltafifo", fifoDiffSeeds, deltafifotest.SeedOps, diffDeltaFIFO)
}

// FuzzDeltaFIFOsDiff feeds fuzz input to the DeltaFIFO differential check,
// for every registered DeltaFIFO but peers (see FuzzFIFOsDiff for how to
// run it).
func FuzzDeltaFIFOsDiff(f *testing.F) {
	fuzzFamily(f, registry.DeltaFIFOs(), deltafifotest.SeedOps, diffDeltaFIFO)
}

func diffDeltaFIFO(t *testing.T, e deltaFIFOEntry, ops []byte) {
	deltafifotest.Diff(t, newDeltaFIFO(e), e.Guarantees, ops)
}

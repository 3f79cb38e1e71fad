package registry_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/deltafifo/deltafifotest"
)

// deltaFIFOs wires the DeltaFIFO family to deltafifotest: seeds 1 to 20,
// as the suite always ran them; peers are skipped by the suite.
func deltaFIFOs() queueFamily[func(cache.DeltaFIFOOptions) cache.Queue, deltafifotest.Guarantees] {
	return queueFamily[func(cache.DeltaFIFOOptions) cache.Queue, deltafifotest.Guarantees]{
		list: registry.DeltaFIFOs(), opsDir: "testdata/diff/deltafifo", seeds: seedRange(1, 20),
		seedOps: deltafifotest.SeedOps, run: deltafifotest.Run, diff: deltafifotest.Diff,
		fresh: func(newQ func(cache.DeltaFIFOOptions) cache.Queue, _ deltafifotest.Guarantees) cache.Queue {
			return newQ(cache.DeltaFIFOOptions{})
		},
	}
}

func TestDeltaFIFOsCatalogue(t *testing.T) {
	deltaFIFOs().testCatalogue(t, map[string]deltafifotest.Guarantees{
		"clientgo":          {Order: guarantee.OrderFIFO},
		"mutex":             {Order: guarantee.OrderFIFO, Ext: true, Batch: true},
		"sharded":           {Order: guarantee.OrderPerShard, Ext: true, Batch: true},
		"ring":              {Order: guarantee.OrderFIFO, Ext: true, Batch: true},
		"clientgo-realfifo": {Order: guarantee.OrderFIFO, Peer: true},
	})
}

// TestDeltaFIFOs runs the DeltaFIFO suite over every registered DeltaFIFO,
// client-go's included; peers (client-go's RealFIFO) declare they are not
// DeltaFIFOs and are skipped, visibly.
func TestDeltaFIFOs(t *testing.T) { deltaFIFOs().testRun(t) }

// TestDeltaFIFOsDiff replays seeded operation sequences and every committed
// op file of testdata/diff/deltafifo on every registered DeltaFIFO against
// client-go's (peers skipped).
func TestDeltaFIFOsDiff(t *testing.T) { deltaFIFOs().testDiff(t) }

// FuzzDeltaFIFOsDiff feeds fuzz input to the DeltaFIFO differential check,
// for every registered DeltaFIFO but peers (see FuzzFIFOsDiff for how to
// run it).
func FuzzDeltaFIFOsDiff(f *testing.F) { deltaFIFOs().fuzz(f) }

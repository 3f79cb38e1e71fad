package registry_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/fifo/fifotest"
)

// fifos wires the FIFO family to fifotest: seeds 1 to 20, as the suite
// always ran them.
func fifos() queueFamily[func(cache.KeyFunc) cache.Queue, fifotest.Guarantees] {
	return queueFamily[func(cache.KeyFunc) cache.Queue, fifotest.Guarantees]{
		list: registry.FIFOs(), opsDir: "testdata/diff/fifo", seeds: seedRange(1, 20),
		seedOps: fifotest.SeedOps, run: fifotest.Run, diff: fifotest.Diff,
		fresh: func(newQ func(cache.KeyFunc) cache.Queue, _ fifotest.Guarantees) cache.Queue {
			return newQ(cache.MetaNamespaceKeyFunc)
		},
	}
}

func TestFIFOsCatalogue(t *testing.T) {
	fifos().testCatalogue(t, map[string]fifotest.Guarantees{
		"clientgo": {Order: guarantee.OrderFIFO},
		"mutex":    {Order: guarantee.OrderFIFO, Ext: true},
		"sharded":  {Order: guarantee.OrderPerShard, Ext: true},
		"ring":     {Order: guarantee.OrderFIFO, Ext: true},
	})
}

// TestFIFOs runs the FIFO suite over every registered FIFO, client-go's
// included.
func TestFIFOs(t *testing.T) { fifos().testRun(t) }

// TestFIFOsDiff replays seeded operation sequences and every committed op
// file of testdata/diff/fifo on every registered FIFO against client-go's.
func TestFIFOsDiff(t *testing.T) { fifos().testDiff(t) }

// FuzzFIFOsDiff feeds fuzz input to the FIFO differential check, for every
// registered FIFO:
//
//	go test -run '^$' -fuzz FuzzFIFOsDiff -fuzzminimizetime 50x ./registry
//
// The sharded queues hash keys with a per-process seed, so coverage differs
// between runs of one input; a small -fuzzminimizetime keeps the fuzzer
// from minimizing "new" inputs it cannot reproduce. A failing input is kept
// (run with -artifacts) for testdata/diff/fifo.
func FuzzFIFOsDiff(f *testing.F) { fifos().fuzz(f) }

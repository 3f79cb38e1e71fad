package registry_test

import (
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/lab/registry/registrytest"
	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/fifo/fifotest"
)

// fifoDiffSeeds are the seeded operation sequences (seeds 1 to 20) every
// FIFO and DeltaFIFO replays against client-go.
var fifoDiffSeeds = seedRange(1, 20)

// fifoFuzzSeeds is how many seeds' operations make a fuzz target's corpus.
const fifoFuzzSeeds = 4

type fifoEntry = registry.Entry[func(cache.KeyFunc) cache.Queue, fifotest.Guarantees]

// newFIFO adapts a registry constructor to the suite's.
func newFIFO(e fifoEntry) fifotest.NewFIFO {
	return func(_ *testing.T, kf cache.KeyFunc) cache.Queue { return e.New(kf) }
}

func TestFIFOsNamesAndGuarantees(t *testing.T) {
	l := registry.FIFOs()
	if got := l.Names(); len(got) != 4 || got[0] != registry.Baseline {
		t.Fatalf("registry %v: want clientgo, then mutex, sharded, ring", got)
	}
	registrytest.CheckGuarantees(t, l, map[string]fifotest.Guarantees{
		"clientgo": {Order: guarantee.OrderFIFO},
		"mutex":    {Order: guarantee.OrderFIFO, Ext: true},
		"sharded":  {Order: guarantee.OrderPerShard, Ext: true},
		"ring":     {Order: guarantee.OrderFIFO, Ext: true},
	})
	for _, e := range l {
		if q := e.New(cache.MetaNamespaceKeyFunc); q.HasSynced() {
			t.Errorf("%s: a new queue reports synced before anything was added", e.Name)
		}
	}
}

// TestFIFOs runs the FIFO suite over every registered FIFO, client-go's
// included.
func TestFIFOs(t *testing.T) {
	for _, e := range registry.FIFOs() {
		t.Run("impl="+e.Name, func(t *testing.T) { fifotest.Run(t, newFIFO(e), e.Guarantees) })
	}
}

// TestFIFOsDiff replays seeded operation sequences and every committed op
// file of testdata/diff/fifo on every registered FIFO against client-go's.
func TestFIFOsDiff(t *testing.T) {
	diffFamily(t, registry.FIFOs(), "testdata/diff/fifo", fifoDiffSeeds, fifotest.SeedOps, func(t *testing.T, e fifoEntry, ops []byte) {
		fifotest.Diff(t, newFIFO(e), e.Guarantees, ops)
	})
}

// FuzzFIFOsDiff feeds fuzz input to the FIFO differential check, for every
// registered FIFO:
//
//	go test -run '^$' -fuzz FuzzFIFOsDiff -fuzzminimizetime 50x ./registry
//
// The sharded queues hash keys with a per-process seed, so coverage differs
// between runs of one input; a small -fuzzminimizetime keeps the fuzzer
// from minimizing "new" inputs it cannot reproduce. A failing input is kept
// (run with -artifacts) for testdata/diff/fifo.
func FuzzFIFOsDiff(f *testing.F) {
	fuzzFamily(f, registry.FIFOs(), fifotest.SeedOps, func(t *testing.T, e fifoEntry, ops []byte) {
		fifotest.Diff(t, newFIFO(e), e.Guarantees, ops)
	})
}

// diffFamily runs diff on every entry of l (subtest impl=<name>) for the
// ops of each of seeds (seed=<n>) and then for every op file under dir
// (file=<name>), the failures kept from earlier runs.
func diffFamily[N, G any](t *testing.T, l registry.List[N, G], dir string, seeds []uint64, seedOps func(uint64) []byte, diff func(*testing.T, registry.Entry[N, G], []byte)) {
	names, files := suite.OpFiles(t, dir)
	for _, e := range l {
		t.Run("impl="+e.Name, func(t *testing.T) {
			for _, seed := range seeds {
				t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) { diff(t, e, seedOps(seed)) })
			}
			for _, name := range names {
				t.Run("file="+name, func(t *testing.T) { diff(t, e, files[name]) })
			}
		})
	}
}

// fuzzFamily is a fuzz target running diff on every entry of l, its corpus
// the ops of the first fifoFuzzSeeds seeds.
func fuzzFamily[N, G any](f *testing.F, l registry.List[N, G], seedOps func(uint64) []byte, diff func(*testing.T, registry.Entry[N, G], []byte)) {
	for seed := uint64(1); seed <= fifoFuzzSeeds; seed++ {
		f.Add(seedOps(seed))
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, e := range l {
			t.Run("impl="+e.Name, func(t *testing.T) { diff(t, e, ops) })
		}
	})
}

// seedRange is the n seeds from first on.
func seedRange(first uint64, n int) []uint64 {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = first + uint64(i)
	}
	return seeds
}

package registry_test

import (
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/lab/registry/registrytest"
	"github.com/queuelab/queuelab/internal/suite"
)

// queueFamily wires one of the FIFO-like families (FIFO, DeltaFIFO,
// in-order FIFO) to its suite, whose Run and Diff take a registry entry's
// constructor and guarantees as they are, so each family's tests are one
// line each:
// Run over every entry, Diff over seeded ops and committed op files, and a
// fuzz target calling Diff.
type queueFamily[N any, G comparable] struct {
	list registry.List[N, G]
	// opsDir holds the op files kept from failing runs (testdata/diff/<family>).
	opsDir string
	// seeds are replayed through seedOps on every entry.
	seeds   []uint64
	seedOps func(seed uint64) []byte
	// fresh builds an empty queue with newQ, in a mode g declares.
	fresh func(newQ N, g G) cache.Queue
	// run and diff are the family suite's Run and Diff.
	run  func(t *testing.T, newQ N, g G)
	diff func(t *testing.T, newQ N, g G, ops []byte)
}

// testCatalogue checks the family's entries: client-go's first, exactly
// the names of want, each declaring want's guarantees (a wrong declaration
// silently skips or runs the wrong properties), and a fresh queue of each
// not synced before anything was added.
func (f queueFamily[N, G]) testCatalogue(t *testing.T, want map[string]G) {
	if got := f.list.Names(); len(got) != len(want) || got[0] != registry.Baseline {
		t.Fatalf("registry %v: want %d entries, client-go's (%s) first", got, len(want), registry.Baseline)
	}
	registrytest.CheckGuarantees(t, f.list, want)
	for _, e := range f.list {
		q := f.fresh(e.New, e.Guarantees)
		if q.HasSynced() {
			t.Errorf("%s: a new queue reports synced before anything was added", e.Name)
		}
		q.Close()
	}
}

// fuzzCorpusSeeds is how many seeds' ops make a fuzz target's corpus.
const fuzzCorpusSeeds = 4

// testRun runs the suite over every entry (subtest impl=<name>).
func (f queueFamily[N, G]) testRun(t *testing.T) {
	for _, e := range f.list {
		t.Run("impl="+e.Name, func(t *testing.T) { f.run(t, e.New, e.Guarantees) })
	}
}

// testDiff runs Diff on every entry (impl=<name>) for the ops of each seed
// (seed=<n>) and then for every op file under opsDir (file=<name>).
func (f queueFamily[N, G]) testDiff(t *testing.T) {
	names, files := suite.OpFiles(t, f.opsDir)
	for _, e := range f.list {
		t.Run("impl="+e.Name, func(t *testing.T) {
			for _, seed := range f.seeds {
				t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) { f.diff(t, e.New, e.Guarantees, f.seedOps(seed)) })
			}
			for _, name := range names {
				t.Run("file="+name, func(t *testing.T) { f.diff(t, e.New, e.Guarantees, files[name]) })
			}
		})
	}
}

// fuzz is a fuzz target running Diff on every entry, its corpus the ops of
// the first fuzzCorpusSeeds seeds.
func (f queueFamily[N, G]) fuzz(fz *testing.F) {
	for _, seed := range f.seeds[:fuzzCorpusSeeds] {
		fz.Add(f.seedOps(seed))
	}
	fz.Fuzz(func(t *testing.T, ops []byte) {
		for _, e := range f.list {
			t.Run("impl="+e.Name, func(t *testing.T) { f.diff(t, e.New, e.Guarantees, ops) })
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

package registry_test

import (
	"fmt"
	"testing"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/lab/registry/registrytest"
	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/priorityq"
	"github.com/queuelab/queuelab/queues/priorityq/priorityqtest"
)

// priorityDiffSeeds is how many seeded operation sequences every priority
// queue's differential check runs.
const priorityDiffSeeds = 20

// TestPriorityQueuesDeclareTheirGuarantees pins each entry's declarations:
// the suite skips by them, so a wrong one silently skips the wrong tests.
func TestPriorityQueuesDeclareTheirGuarantees(t *testing.T) {
	registrytest.CheckGuarantees(t, registry.PriorityQueues[string](), map[string]priorityqtest.Guarantees{
		registry.PriorityBaseline: {Order: guarantee.OrderFIFO, KeepsPosition: true},
		"mutex":                   {Order: guarantee.OrderFIFO, KeepsPosition: true, DrainOnShutdown: true, GetYield: true},
		"sharded":                 {Order: guarantee.OrderPerShard, KeepsPosition: true, DrainOnShutdown: true, GetYield: true},
		"lockfree":                {Order: guarantee.OrderFIFO, DrainOnShutdown: true, GetYield: true},
	})
}

// TestPriorityQueues holds every entry to the priority-queue contract it
// declares.
func TestPriorityQueues(t *testing.T) {
	for _, e := range registry.PriorityQueues[string]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			t.Parallel()
			priorityqtest.Run(t, e.New, e.Guarantees)
		})
	}
}

// TestPriorityQueuesDiff checks every entry that declares
// controller-runtime's order against controller-runtime's queue on seeded
// operation sequences.
func TestPriorityQueuesDiff(t *testing.T) {
	for _, e := range registry.PriorityQueues[string]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(priorityDiffSeeds) {
				t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
					priorityqtest.Diff(t, e.New, e.Guarantees, priorityqtest.SeedOps(seed))
				})
			}
		})
	}
}

// TestPriorityQueuesDiffReplay replays every committed operation sequence
// (a differential failure once found, or a short seed's) on every entry.
func TestPriorityQueuesDiffReplay(t *testing.T) {
	names, ops := suite.OpFiles(t, "testdata/diff/priorityq")
	if len(names) == 0 {
		t.Fatal("no op files under testdata/diff/priorityq: the replay would check nothing")
	}
	for _, e := range registry.PriorityQueues[string]() {
		for _, name := range names {
			t.Run("impl="+e.Name+"/"+name, func(t *testing.T) {
				priorityqtest.Diff(t, e.New, e.Guarantees, ops[name])
			})
		}
	}
}

// TestPriorityQueuesGetYields runs priorityqtest.GetYields on every entry,
// one after another and not in parallel with other tests, because it sets
// GOMAXPROCS.
func TestPriorityQueuesGetYields(t *testing.T) {
	for _, e := range registry.PriorityQueues[string]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			priorityqtest.GetYields(t, e.New, e.Guarantees)
		})
	}
}

// TestPriorityBaselineRefusesWhatItCannotHonour: controller-runtime's
// queue, built from the library's Options, refuses the options it has no
// equivalent of instead of ignoring them.
func TestPriorityBaselineRefusesWhatItCannotHonour(t *testing.T) {
	e := registry.Must(registry.PriorityQueues[string]().Lookup(registry.PriorityBaseline))
	build := func(o priorityq.Options[string]) func() (any, error) {
		return func() (any, error) { return e.New(o) }
	}
	registrytest.CheckRejected(t, map[string]func() (any, error){
		"Shards":          build(priorityq.Options[string]{Shards: 4}),
		"DrainOnShutdown": build(priorityq.Options[string]{DrainOnShutdown: true}),
		"GetYieldOff":     build(priorityq.Options[string]{GetYield: priorityq.GetYieldOff}),
		"GetYieldOn":      build(priorityq.Options[string]{GetYield: priorityq.GetYieldOn}),
	})
}

package priorityq_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/queues/priorityq"
	"github.com/queuelab/queuelab/queues/priorityq/priorityqtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newQueue adapts a registry entry to the suite.
func newQueue(e priorityq.Entry[string]) priorityqtest.NewQueue {
	return func(t *testing.T, o priorityq.Options[string]) priorityq.PriorityQueue[string] {
		q, err := e.New(o)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
}

func TestPriorityQueue(t *testing.T) {
	for _, e := range priorityq.Impls[string]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			t.Parallel()
			priorityqtest.RunPriorityQueue(t, newQueue(e), priorityqtest.WithGuarantees(e.Guarantees))
		})
	}
}

// TestShardedOneShardDiff holds the sharded queue's engine and shard logic
// to controller-runtime's order exactly, where one shard makes it exact.
func TestShardedOneShardDiff(t *testing.T) {
	newOne := func(t *testing.T, o priorityq.Options[string]) priorityq.PriorityQueue[string] {
		o.Shards = 1
		q, err := priorityq.NewSharded(o)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	for seed := range uint64(20) {
		priorityqtest.DiffPriorityQueue(t, newOne, seed, 300)
	}
}

// FuzzPriorityQueue explores seeds of the differential check on the mutex
// queue: go test -fuzz FuzzPriorityQueue ./queues/priorityq
func FuzzPriorityQueue(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(seed, uint16(200))
	}
	e, err := priorityq.Impls[string]().Lookup("mutex")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		priorityqtest.DiffPriorityQueue(t, newQueue(e), seed, int(steps%1000))
	})
}

// TestGetYields runs priorityqtest.GetYields on the lab's queues, one after
// another and not in parallel with other tests, because it sets GOMAXPROCS.
func TestGetYields(t *testing.T) {
	for _, e := range priorityq.Impls[string]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			if e.Name == priorityq.Baseline {
				t.Skip("controller-runtime's Get hands off to its own goroutine, which keeps the processor's turn (see GetYields)")
			}
			priorityqtest.GetYields(t, newQueue(e))
		})
	}
}

package priorityq_test

import (
	"testing"

	"go.uber.org/goleak"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/queues/priorityq"
	"github.com/queuelab/queuelab/queues/priorityq/priorityqtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// variant is one queue these tests hold to a property, built directly by
// its constructor. (The conformance suite over the lab's catalogue runs in
// internal/lab/registry.)
type variant[T comparable] struct {
	name string
	new  func(priorityq.Options[T]) (priorityq.PriorityQueue[T], error)
}

// variants are the package's three queues.
func variants[T comparable]() []variant[T] {
	return []variant[T]{
		{"mutex", func(o priorityq.Options[T]) (priorityq.PriorityQueue[T], error) {
			return asQueue[T](priorityq.NewMutex(o))
		}},
		{"sharded", func(o priorityq.Options[T]) (priorityq.PriorityQueue[T], error) {
			return asQueue[T](priorityq.NewSharded(o))
		}},
		{"lockfree", func(o priorityq.Options[T]) (priorityq.PriorityQueue[T], error) {
			return asQueue[T](priorityq.NewLockFree(o))
		}},
	}
}

// withControllerRuntime is controller-runtime's own queue, named and
// limited by o, followed by the variants: the tests that compare with it
// or hold it to the same property.
func withControllerRuntime[T comparable]() []variant[T] {
	cr := variant[T]{"controllerruntime", func(o priorityq.Options[T]) (priorityq.PriorityQueue[T], error) {
		return priorityqueue.New(o.Name, func(co *priorityqueue.Opts[T]) {
			if o.RateLimiter != nil {
				co.RateLimiter = o.RateLimiter
			}
		}), nil
	}}
	return append([]variant[T]{cr}, variants[T]()...)
}

// asQueue is a constructor's result as the interface: nil on error, not a
// nil pointer in a non-nil interface.
func asQueue[T comparable, Q priorityq.PriorityQueue[T]](q Q, err error) (priorityq.PriorityQueue[T], error) {
	if err != nil {
		return nil, err
	}
	return q, nil
}

// exact is what the differential check needs declared: controller-runtime's
// order, which a one-shard Sharded queue keeps.
var exact = priorityqtest.Guarantees{Order: guarantee.OrderFIFO, KeepsPosition: true}

// oneShard is a Sharded queue with a single shard.
func oneShard(o priorityq.Options[string]) (priorityq.PriorityQueue[string], error) {
	o.Shards = 1
	return asQueue[string](priorityq.NewSharded(o))
}

// TestShardedOneShardDiff holds the sharded queue's engine and shard logic
// to controller-runtime's order exactly, where one shard makes it exact.
func TestShardedOneShardDiff(t *testing.T) {
	for seed := range uint64(20) {
		priorityqtest.Diff(t, oneShard, exact, priorityqtest.SeedOps(seed))
	}
}

// FuzzMutexDiff explores operation sequences of the differential check on
// the mutex queue: go test -fuzz FuzzMutexDiff ./queues/priorityq
func FuzzMutexDiff(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(priorityqtest.SeedOps(seed))
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		priorityqtest.Diff(t, variants[string]()[0].new, exact, ops)
	})
}

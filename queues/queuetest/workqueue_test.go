package queuetest_test

import (
	"testing"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/queues/queuetest"
	"github.com/queuelab/queuelab/queues/workq"
)

// TestWorkQueue runs the workqueue suite over every registered
// implementation, client-go's included.
func TestWorkQueue(t *testing.T) {
	for _, e := range workq.Impls[string]() {
		t.Run(e.Name, func(t *testing.T) {
			queuetest.RunWorkQueue(t, func(*testing.T) workqueue.TypedInterface[string] { return e.New() },
				queuetest.WithOrder(e.Guarantees.Order))
		})
	}
}

// FuzzWorkQueueDifferential explores op sequences beyond the suite's fixed
// seeds: go test -fuzz FuzzWorkQueueDifferential ./queues/queuetest
func FuzzWorkQueueDifferential(f *testing.F) {
	f.Add(uint64(1), uint16(300))
	f.Add(uint64(42), uint16(1000))
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16) {
		for _, e := range workq.Impls[string]() {
			t.Run(e.Name, func(t *testing.T) {
				queuetest.DiffWorkQueue(t, func(*testing.T) workqueue.TypedInterface[string] { return e.New() },
					seed, int(steps), queuetest.WithOrder(e.Guarantees.Order))
			})
		}
	})
}

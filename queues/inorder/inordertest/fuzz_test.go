package inordertest_test

import (
	"testing"
	"time"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/inorder/inordertest"
)

// FuzzInOrderFIFODifferential feeds fuzz input to the differential check
// against client-go's RealFIFO, for every registered implementation (the
// seed corpus runs with every go test). To fuzz:
//
//	go test -run '^$' -fuzz FuzzInOrderFIFODifferential -fuzzminimizetime 50x ./queues/inorder/inordertest
//
// Goroutine scheduling makes the coverage of one input differ from run to
// run, so without a small -fuzzminimizetime the fuzzer spends a minute at a
// time minimizing "new" inputs it cannot reproduce (about 2 execs/s instead
// of thousands).
func FuzzInOrderFIFODifferential(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(inordertest.Ops(seed, 900))
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, e := range inorder.Impls {
			t.Run("impl="+e.Name, func(t *testing.T) {
				watchdog.Run(t, 20*time.Second, func() {
					inordertest.DiffInOrderFIFO(t, func(t *testing.T, o inorder.Options) inorder.Queue {
						q, err := e.New(o)
						if err != nil {
							t.Fatal(err)
						}
						return q
					}, ops, inordertest.OptionsFor(e.Guarantees)...)
				})
			})
		}
	})
}

// TestSuiteOnClientGo runs the suite against client-go's RealFIFO built
// directly, in both modes, independently of the family's registry: a suite
// client-go fails is a wrong suite.
func TestSuiteOnClientGo(t *testing.T) {
	for _, e := range inorder.Impls {
		if e.Name != "clientgo" && e.Name != "clientgo-nonatomic" {
			continue
		}
		t.Run("impl="+e.Name, func(t *testing.T) {
			inordertest.RunInOrderFIFO(t, func(t *testing.T, o inorder.Options) inorder.Queue {
				q, err := e.New(o)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(q.Close)
				return q
			}, inordertest.OptionsFor(e.Guarantees)...)
		})
	}
}

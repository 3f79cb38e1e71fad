package fifo_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/fifo"
	"github.com/queuelab/queuelab/queues/fifo/fifotest"
	"github.com/queuelab/queuelab/queues/internal/queuesuite"
)

// newFIFO adapts a registry constructor to the suite's.
func newFIFO(e fifo.Entry) fifotest.NewFIFO {
	return func(_ *testing.T, kf cache.KeyFunc) cache.Queue { return e.New(kf) }
}

// TestFIFO runs the FIFO suite over every registered FIFO, client-go's
// included.
func TestFIFO(t *testing.T) {
	for _, e := range fifo.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) { fifotest.RunFIFO(t, newFIFO(e), e.Guarantees) })
	}
}

// FuzzFIFODifferential feeds fuzz input to the FIFO differential check, for
// every registered FIFO:
//
//	go test -run '^$' -fuzz FuzzFIFODifferential -fuzzminimizetime 50x ./queues/fifo
//
// The sharded queues hash keys with a per-process seed, so coverage differs
// between runs of one input; a small -fuzzminimizetime keeps the fuzzer
// from minimizing "new" inputs it cannot reproduce.
func FuzzFIFODifferential(f *testing.F) {
	queuesuite.FuzzSeeds(f)
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, e := range fifo.Impls {
			t.Run("impl="+e.Name, func(t *testing.T) {
				watchdog.Run(t, queuesuite.FuzzTimeout, func() { fifotest.DiffFIFO(t, newFIFO(e), e.Guarantees, ops) })
			})
		}
	})
}

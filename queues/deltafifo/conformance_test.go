package deltafifo_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/deltafifo/deltafifotest"
	"github.com/queuelab/queuelab/queues/internal/queuesuite"
)

// newDeltaFIFO adapts a registry constructor to the suite's.
func newDeltaFIFO(e deltafifo.Entry) deltafifotest.NewDeltaFIFO {
	return func(_ *testing.T, o cache.DeltaFIFOOptions) cache.Queue { return e.New(o) }
}

// TestDeltaFIFO runs the DeltaFIFO suite over every registered DeltaFIFO,
// client-go's included; peers (client-go's RealFIFO) declare they are not
// DeltaFIFOs and are skipped, visibly.
func TestDeltaFIFO(t *testing.T) {
	for _, e := range deltafifo.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) {
			if e.Guarantees.Peer {
				t.Skip("peer: measured alongside, not held to the DeltaFIFO contract")
			}
			deltafifotest.RunDeltaFIFO(t, newDeltaFIFO(e), e.Guarantees)
		})
	}
}

// FuzzDeltaFIFODifferential feeds fuzz input to the DeltaFIFO differential
// check, for every registered DeltaFIFO but peers (see
// FuzzFIFODifferential in queues/fifo for how to run it).
func FuzzDeltaFIFODifferential(f *testing.F) {
	queuesuite.FuzzSeeds(f)
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, e := range deltafifo.Impls {
			if e.Guarantees.Peer {
				continue
			}
			t.Run("impl="+e.Name, func(t *testing.T) {
				watchdog.Run(t, queuesuite.FuzzTimeout, func() { deltafifotest.DiffDeltaFIFO(t, newDeltaFIFO(e), e.Guarantees, ops) })
			})
		}
	})
}

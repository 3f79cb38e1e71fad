package queuetest_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/queuetest"
)

// deltaFIFOOptions turns an entry's declared guarantees into suite options.
func deltaFIFOOptions(g deltafifo.Guarantees) []queuetest.Option {
	opts := []queuetest.Option{queuetest.WithOrder(g.Order)}
	if g.Ext {
		opts = append(opts, queuetest.WithExt())
	}
	return opts
}

// TestDeltaFIFO runs the DeltaFIFO suite over every registered DeltaFIFO,
// client-go's included; peers (client-go's RealFIFO) are not DeltaFIFOs and
// are skipped, visibly.
func TestDeltaFIFO(t *testing.T) {
	for _, e := range deltafifo.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) {
			if e.Guarantees.Peer {
				t.Skip("peer: measured alongside, not held to the DeltaFIFO contract")
			}
			queuetest.RunDeltaFIFO(t, func(_ *testing.T, o cache.DeltaFIFOOptions) cache.Queue { return e.New(o) },
				deltaFIFOOptions(e.Guarantees)...)
		})
	}
}

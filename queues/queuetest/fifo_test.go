package queuetest_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/fifo"
	"github.com/queuelab/queuelab/queues/queuetest"
)

// fifoOptions turns an entry's declared guarantees into suite options.
func fifoOptions(g fifo.Guarantees) []queuetest.Option {
	opts := []queuetest.Option{queuetest.WithOrder(g.Order)}
	if g.Ext {
		opts = append(opts, queuetest.WithExt())
	}
	return opts
}

// TestFIFO runs the FIFO suite over every registered FIFO, client-go's
// included.
func TestFIFO(t *testing.T) {
	for _, e := range fifo.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) {
			queuetest.RunFIFO(t, func(_ *testing.T, kf cache.KeyFunc) cache.Queue { return e.New(kf) }, fifoOptions(e.Guarantees)...)
		})
	}
}

package fifotest

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/fifo"
	"github.com/queuelab/queuelab/queues/internal/queuesuite"
)

// NewFIFO constructs a fresh, empty FIFO keyed by keyFunc for one property.
type NewFIFO func(t *testing.T, keyFunc cache.KeyFunc) cache.Queue

// RunFIFO checks the FIFO contract (see the package doc) on FIFOs made by
// newFIFO: one subtest per property, each on fresh queues under a deadlock
// watchdog, skipping with "[relaxed]" or "[ext]" what g does not declare.
func RunFIFO(t *testing.T, newFIFO NewFIFO, g fifo.Guarantees) {
	t.Helper()
	c := queuesuite.NewConfig(g.Order, g.Ext, false)
	suite.Run(t, c.Timeout, queuesuite.FIFOProperties(queuesuite.NewFIFO(newFIFO), c))
}

// DiffFIFO replays the operations ops encodes (any bytes: a fuzz target's
// input) on a FIFO from newFIFO and on client-go's cache.FIFO, and fails at
// the first observable difference, printing the operation trace. Keys are
// compared in the order g declares.
func DiffFIFO(t *testing.T, newFIFO NewFIFO, g fifo.Guarantees, ops []byte) {
	t.Helper()
	queuesuite.DiffFIFO(t, queuesuite.NewFIFO(newFIFO), ops, queuesuite.NewConfig(g.Order, g.Ext, false))
}

// SeedOps returns the operations the differential property runs for seed
// (it runs seeds 1 to 20 and names the failing one): DiffFIFO(t, newFIFO,
// g, SeedOps(seed)) replays that failure alone.
func SeedOps(seed uint64) []byte { return queuesuite.SeedOps(seed) }

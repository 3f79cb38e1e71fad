package fifotest

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/internal/queuesuite"
)

// Guarantees declares what a FIFO implementation promises beyond the
// cache.Queue contract every implementation keeps; Run and Diff hold it to
// exactly these and skip the rest visibly.
type Guarantees struct {
	// Order is the Pop order across different keys.
	Order guarantee.Order
	// Ext: the implementation keeps the seed behaviours client-go dropped
	// (AddIfNotPresent, ErrRequeue). Suites skip [ext] cases otherwise.
	Ext bool
}

// Run checks the FIFO contract (see the package doc) on FIFOs made by
// newFIFO, which builds a fresh, empty FIFO keyed by keyFunc (as
// cache.NewFIFO does): one subtest per property, each on fresh queues under
// a deadlock watchdog, skipping with "[relaxed]" or "[ext]" what g does not
// declare.
func Run(t *testing.T, newFIFO func(keyFunc cache.KeyFunc) cache.Queue, g Guarantees) {
	t.Helper()
	suite.Run(t, watchdog.DefaultTimeout, queuesuite.FIFOProperties(perTest(newFIFO), config(g)))
}

// Diff replays the operations ops encodes (any bytes: a fuzz target's
// input, or SeedOps) on a FIFO from newFIFO and on client-go's cache.FIFO,
// under a deadlock watchdog, and fails at the first observable difference,
// printing the operation trace. Keys are compared in the order g declares.
// A failing ops is kept for replay (suite.KeepFailingOps).
func Diff(t *testing.T, newFIFO func(keyFunc cache.KeyFunc) cache.Queue, g Guarantees, ops []byte) {
	t.Helper()
	suite.KeepFailingOps(t, ops)
	watchdog.Run(t, watchdog.DefaultTimeout, func() {
		queuesuite.DiffFIFO(t, perTest(newFIFO), ops, config(g))
	})
}

// SeedOps returns the operations a seeded differential run replays:
// Diff(t, newFIFO, g, SeedOps(seed)) repeats the run a test named by that
// seed made.
func SeedOps(seed uint64) []byte { return queuesuite.SeedOps(seed) }

// config is what g holds an implementation to.
func config(g Guarantees) queuesuite.Config { return queuesuite.NewConfig(g.Order, g.Ext, false) }

// perTest is newFIFO as the properties call it.
func perTest(newFIFO func(cache.KeyFunc) cache.Queue) queuesuite.NewFIFO {
	return func(_ *testing.T, keyFunc cache.KeyFunc) cache.Queue { return newFIFO(keyFunc) }
}

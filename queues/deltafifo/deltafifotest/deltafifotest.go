package deltafifotest

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/internal/queuesuite"
)

// Guarantees declares what a DeltaFIFO implementation promises beyond the
// cache.Queue contract; Run and Diff hold it to exactly these and skip the
// rest visibly.
type Guarantees struct {
	// Order is the Pop order across different keys. Per-key delta order is
	// never relaxed.
	Order guarantee.Order
	// Ext: the implementation keeps the seed behaviours client-go dropped
	// (AddIfNotPresent, ErrRequeue, exported Get/List accessors, atomic
	// failure of Replace and Resync). Suites skip [ext] cases otherwise.
	Ext bool
	// Batch: the queue is a cache.QueueWithBatch whose PopBatch hands out
	// exactly what the equivalent Pops would (client-go's DeltaFIFO has no
	// PopBatch). Suites skip the PopBatch properties otherwise.
	Batch bool
	// Peer marks an entry measured alongside the family in benchmarks but
	// not held to the DeltaFIFO contract (client-go's RealFIFO does not
	// compress deltas per key). Run and Diff skip peers.
	Peer bool
}

// peer is the Skip of a queue declaring itself a peer.
const peer = "peer: measured alongside the family, not held to the DeltaFIFO contract (Guarantees.Peer)"

// Run checks the DeltaFIFO contract (see the package doc) on queues made by
// newDeltaFIFO, which builds a fresh, empty DeltaFIFO honouring opts (as
// cache.NewDeltaFIFOWithOptions does): one subtest per property, each on fresh queues under a
// deadlock watchdog, skipping with "[relaxed]" or "[ext]" what g does not
// declare (and everything, visibly, for a peer). Properties include
// concurrency hammers with exact accounting and runs under a real client-go
// controller (Pop and PopBatch).
func Run(t *testing.T, newDeltaFIFO func(opts cache.DeltaFIFOOptions) cache.Queue, g Guarantees) {
	t.Helper()
	if g.Peer {
		t.Skip(peer)
	}
	suite.Run(t, watchdog.DefaultTimeout, queuesuite.DeltaFIFOProperties(perTest(newDeltaFIFO), config(g)))
}

// Diff replays the operations ops encodes (any bytes: a fuzz target's
// input, or SeedOps) on a DeltaFIFO from newDeltaFIFO and on client-go's
// cache.DeltaFIFO, under a deadlock watchdog, each consumer keeping its own
// KnownObjects as an informer does, and fails at the first observable
// difference, printing the trace. A failing ops is kept for replay
// (suite.KeepFailingOps); a peer is skipped.
func Diff(t *testing.T, newDeltaFIFO func(opts cache.DeltaFIFOOptions) cache.Queue, g Guarantees, ops []byte) {
	t.Helper()
	if g.Peer {
		t.Skip(peer)
	}
	suite.KeepFailingOps(t, ops)
	watchdog.Run(t, watchdog.DefaultTimeout, func() {
		queuesuite.DiffDeltaFIFO(t, perTest(newDeltaFIFO), ops, config(g))
	})
}

// ApplyDeltas does to store what an informer's consumer does with popped
// Deltas, without handlers: a deletion removes the object, every other
// delta adds or updates it. Benchmarks and load generators use it as the
// consumer that keeps KnownObjects.
func ApplyDeltas(store cache.Store, ds cache.Deltas) error { return queuesuite.ApplyDeltas(store, ds) }

// SeedOps returns the operations a seeded differential run replays:
// Diff(t, newDeltaFIFO, g, SeedOps(seed)) repeats the run a test named by
// that seed made.
func SeedOps(seed uint64) []byte { return queuesuite.SeedOps(seed) }

// config is what g holds an implementation to.
func config(g Guarantees) queuesuite.Config { return queuesuite.NewConfig(g.Order, g.Ext, g.Batch) }

// perTest is newDeltaFIFO as the properties call it.
func perTest(newDeltaFIFO func(cache.DeltaFIFOOptions) cache.Queue) queuesuite.NewDeltaFIFO {
	return func(_ *testing.T, opts cache.DeltaFIFOOptions) cache.Queue { return newDeltaFIFO(opts) }
}

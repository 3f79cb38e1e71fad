package deltafifotest

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/internal/queuesuite"
)

// NewDeltaFIFO constructs a fresh, empty DeltaFIFO honouring opts for one
// property.
type NewDeltaFIFO func(t *testing.T, opts cache.DeltaFIFOOptions) cache.Queue

// RunDeltaFIFO checks the DeltaFIFO contract (see the package doc) on
// queues made by newDeltaFIFO: one subtest per property, each on fresh
// queues under a deadlock watchdog, skipping with "[relaxed]" or "[ext]"
// what g does not declare. Properties include concurrency hammers with
// exact accounting, runs under a real client-go controller (Pop and
// PopBatch) and a seeded differential check against client-go.
func RunDeltaFIFO(t *testing.T, newDeltaFIFO NewDeltaFIFO, g deltafifo.Guarantees) {
	t.Helper()
	c := queuesuite.NewConfig(g.Order, g.Ext, g.Batch)
	suite.Run(t, c.Timeout, queuesuite.DeltaFIFOProperties(queuesuite.NewDeltaFIFO(newDeltaFIFO), c))
}

// DiffDeltaFIFO replays the operations ops encodes (any bytes: a fuzz
// target's input) on a DeltaFIFO from newDeltaFIFO and on client-go's
// cache.DeltaFIFO, each consumer keeping its own KnownObjects as an
// informer does, and fails at the first observable difference, printing
// the trace.
func DiffDeltaFIFO(t *testing.T, newDeltaFIFO NewDeltaFIFO, g deltafifo.Guarantees, ops []byte) {
	t.Helper()
	queuesuite.DiffDeltaFIFO(t, queuesuite.NewDeltaFIFO(newDeltaFIFO), ops, queuesuite.NewConfig(g.Order, g.Ext, g.Batch))
}

// ApplyDeltas does to store what an informer's processDeltas does with a
// popped Deltas: every delta but a deletion adds or updates the object, a
// deletion removes it. Benchmarks and load generators use it as the
// consumer that keeps KnownObjects.
func ApplyDeltas(store cache.Store, ds cache.Deltas) error { return queuesuite.ApplyDeltas(store, ds) }

// SeedOps returns the operations the differential property runs for a
// seed; DiffDeltaFIFO(t, newDeltaFIFO, g, SeedOps(seed)) replays the
// failure the property reported for it.
func SeedOps(seed uint64) []byte { return queuesuite.SeedOps(seed) }

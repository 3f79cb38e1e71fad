package deltafifo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/impl"
)

// Guarantees declares what a DeltaFIFO implementation promises beyond the
// cache.Queue contract.
type Guarantees struct {
	// Order is the Pop order across different keys. Per-key delta order is
	// never relaxed.
	Order impl.Order
	// Peer marks an entry measured alongside the family in benchmarks but
	// not held to the DeltaFIFO contract (client-go's RealFIFO does not
	// compress deltas per key). Conformance suites skip peers.
	Peer bool
}

// New constructs a fresh, empty DeltaFIFO honouring opts.
type New func(opts cache.DeltaFIFOOptions) cache.Queue

// Impls is the DeltaFIFO family's registry, client-go's DeltaFIFO first.
var Impls = impl.List[New, Guarantees]{
	{
		Name:       impl.Baseline,
		Doc:        "client-go cache.NewDeltaFIFOWithOptions: one RWMutex and cond, map of Deltas, slice queue",
		New:        func(opts cache.DeltaFIFOOptions) cache.Queue { return cache.NewDeltaFIFOWithOptions(opts) },
		Guarantees: Guarantees{Order: impl.OrderFIFO},
	},
}

package deltafifo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/queuelab/queuelab/queues/registry"
)

// Guarantees declares what a DeltaFIFO implementation promises beyond the
// cache.Queue contract.
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
	// compress deltas per key). Conformance suites skip peers.
	Peer bool
}

// New constructs a fresh, empty DeltaFIFO honouring opts.
type New func(opts cache.DeltaFIFOOptions) cache.Queue

// Entry is one registered implementation.
type Entry = registry.Entry[New, Guarantees]

// Impls is the DeltaFIFO family's registry, client-go's DeltaFIFO first.
var Impls = registry.List[New, Guarantees]{
	{
		Name:       registry.Baseline,
		Doc:        "client-go cache.NewDeltaFIFOWithOptions: one RWMutex and cond, map of Deltas, slice queue",
		New:        func(opts cache.DeltaFIFOOptions) cache.Queue { return cache.NewDeltaFIFOWithOptions(opts) },
		Guarantees: Guarantees{Order: guarantee.OrderFIFO},
	},
	{
		Name:       "mutex",
		Doc:        "one mutex, global FIFO order, interned keys, arena-allocated Deltas, ring-buffer queue, PopBatch",
		New:        entry(NewMutex),
		Guarantees: Guarantees{Order: guarantee.OrderFIFO, Ext: true, Batch: true},
	},
	{
		Name:       "sharded",
		Doc:        "keys hashed over independently locked shards, FIFO order per shard, bulk operations under every lock",
		New:        entry(NewSharded),
		Guarantees: Guarantees{Order: guarantee.OrderPerShard, Ext: true, Batch: true},
	},
	{
		Name:       "ring",
		Doc:        "sharded key state, queued keys handed to Pop through a lock-free MPMC queue of rings, global FIFO order",
		New:        entry(NewRing),
		Guarantees: Guarantees{Order: guarantee.OrderFIFO, Ext: true, Batch: true},
	},
	{
		Name:       "clientgo-realfifo",
		Doc:        "client-go cache.NewRealFIFOWithOptions: every event in arrival order, no per-key compression (a peer, not a DeltaFIFO)",
		New:        newRealFIFO,
		Guarantees: Guarantees{Order: guarantee.OrderFIFO, Peer: true},
	},
}

// entry adapts one of this package's constructors to the registry's
// New: the default layout settings, which are valid, so Must cannot fail.
func entry[Q cache.Queue](newQ func(Options) (Q, error)) New {
	return func(opts cache.DeltaFIFOOptions) cache.Queue {
		return registry.Must(newQ(Options{DeltaFIFOOptions: opts}))
	}
}

// newRealFIFO builds client-go's RealFIFO from the DeltaFIFO options it
// shares. RealFIFO requires KnownObjects in its non-atomic mode (the one
// that, like DeltaFIFO, emits per-object deltas on Replace and Resync); an
// empty store stands in when opts has none.
func newRealFIFO(opts cache.DeltaFIFOOptions) cache.Queue {
	known := opts.KnownObjects
	if known == nil {
		keyFunc := opts.KeyFunction
		if keyFunc == nil {
			keyFunc = cache.MetaNamespaceKeyFunc
		}
		known = cache.NewStore(keyFunc)
	}
	return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{
		Logger:       opts.Logger,
		Name:         opts.Name,
		KeyFunction:  opts.KeyFunction,
		KnownObjects: known,
		Transformer:  opts.Transformer,
	})
}

package registry

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/deltafifo/deltafifotest"
)

// DeltaFIFOs is the DeltaFIFO family (cache.DeltaFIFO drop-ins,
// queues/deltafifo), client-go's DeltaFIFO first and client-go's RealFIFO
// last as a peer: each constructor builds an empty queue honouring opts,
// with the variant's default layout.
func DeltaFIFOs() List[func(opts cache.DeltaFIFOOptions) cache.Queue, deltafifotest.Guarantees] {
	return List[func(cache.DeltaFIFOOptions) cache.Queue, deltafifotest.Guarantees]{
		{
			Name:       Baseline,
			Doc:        "client-go cache.NewDeltaFIFOWithOptions: one RWMutex and cond, map of Deltas, slice queue",
			New:        func(opts cache.DeltaFIFOOptions) cache.Queue { return cache.NewDeltaFIFOWithOptions(opts) },
			Guarantees: deltafifotest.Guarantees{Order: guarantee.OrderFIFO},
		},
		{
			Name:       "mutex",
			Doc:        "one mutex, global FIFO order, interned keys, arena-allocated Deltas, ring-buffer queue, PopBatch",
			New:        queueWith(deltafifo.NewMutex, deltaFIFOOptions),
			Guarantees: deltafifotest.Guarantees{Order: guarantee.OrderFIFO, Ext: true, Batch: true},
		},
		{
			Name:       "sharded",
			Doc:        "keys hashed over independently locked shards, FIFO order per shard, bulk operations under every lock",
			New:        queueWith(deltafifo.NewSharded, deltaFIFOOptions),
			Guarantees: deltafifotest.Guarantees{Order: guarantee.OrderPerShard, Ext: true, Batch: true},
		},
		{
			Name:       "ring",
			Doc:        "sharded key state, queued keys handed to Pop through a lock-free MPMC queue of rings, global FIFO order",
			New:        queueWith(deltafifo.NewRing, deltaFIFOOptions),
			Guarantees: deltafifotest.Guarantees{Order: guarantee.OrderFIFO, Ext: true, Batch: true},
		},
		{
			Name:       "clientgo-realfifo",
			Doc:        "client-go cache.NewRealFIFOWithOptions: every event in arrival order, no per-key compression (a peer, not a DeltaFIFO)",
			New:        realFIFOPeer,
			Guarantees: deltafifotest.Guarantees{Order: guarantee.OrderFIFO, Peer: true},
		},
	}
}

// deltaFIFOOptions are the default layout settings with client-go's
// DeltaFIFO options as they are.
func deltaFIFOOptions(opts cache.DeltaFIFOOptions) deltafifo.Options {
	return deltafifo.Options{DeltaFIFOOptions: opts}
}

// realFIFOPeer builds client-go's RealFIFO from the DeltaFIFO options it
// shares. RealFIFO requires KnownObjects in its non-atomic mode (the one
// that, like DeltaFIFO, emits per-object deltas on Replace and Resync); an
// empty store stands in when opts has none.
func realFIFOPeer(opts cache.DeltaFIFOOptions) cache.Queue {
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

package fifo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/queuelab/queuelab/queues/registry"
)

// Guarantees declares what a FIFO implementation promises beyond the
// cache.Queue contract every entry keeps.
type Guarantees struct {
	// Order is the Pop order across different keys.
	Order guarantee.Order
	// Ext: the implementation keeps the seed behaviours client-go dropped
	// (AddIfNotPresent, ErrRequeue). Suites skip [ext] cases otherwise.
	Ext bool
}

// New constructs a fresh, empty FIFO keyed by keyFunc.
type New func(keyFunc cache.KeyFunc) cache.Queue

// Entry is one registered implementation.
type Entry = registry.Entry[New, Guarantees]

// Impls is the FIFO family's registry, client-go's FIFO first.
var Impls = registry.List[New, Guarantees]{
	{
		Name:       registry.Baseline,
		Doc:        "client-go cache.NewFIFO: one RWMutex and cond, item map, slice queue",
		New:        func(keyFunc cache.KeyFunc) cache.Queue { return cache.NewFIFO(keyFunc) },
		Guarantees: Guarantees{Order: guarantee.OrderFIFO},
	},
	{
		Name:       "mutex",
		Doc:        "one mutex, global FIFO order, ring-buffer queue, interned keys, AddIfNotPresent and ErrRequeue",
		New:        entry(NewMutex),
		Guarantees: Guarantees{Order: guarantee.OrderFIFO, Ext: true},
	},
	{
		Name:       "sharded",
		Doc:        "keys hashed over independently locked shards, FIFO order per shard, Pop from a random shard with entries",
		New:        entry(NewSharded),
		Guarantees: Guarantees{Order: guarantee.OrderPerShard, Ext: true},
	},
	{
		Name:       "ring",
		Doc:        "sharded key state, queued keys handed to Pop through a lock-free MPMC queue of rings, global FIFO order",
		New:        entry(NewRing),
		Guarantees: Guarantees{Order: guarantee.OrderFIFO, Ext: true},
	},
}

// entry adapts one of this package's constructors to the registry's New:
// the default layout settings, which are valid, so Must cannot fail.
func entry[Q cache.Queue](newQ func(Options) (Q, error)) New {
	return func(keyFunc cache.KeyFunc) cache.Queue {
		return registry.Must(newQ(Options{KeyFunc: keyFunc}))
	}
}

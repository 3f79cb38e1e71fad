package registry

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/queues/fifo"
	"github.com/queuelab/queuelab/queues/fifo/fifotest"
)

// FIFOs is the FIFO family (cache.FIFO drop-ins, queues/fifo), client-go's
// FIFO first: each constructor builds an empty FIFO keyed by keyFunc, with
// the variant's default layout.
func FIFOs() List[func(keyFunc cache.KeyFunc) cache.Queue, fifotest.Guarantees] {
	return List[func(cache.KeyFunc) cache.Queue, fifotest.Guarantees]{
		{
			Name:       Baseline,
			Doc:        "client-go cache.NewFIFO: one RWMutex and cond, item map, slice queue",
			New:        func(keyFunc cache.KeyFunc) cache.Queue { return cache.NewFIFO(keyFunc) },
			Guarantees: fifotest.Guarantees{Order: guarantee.OrderFIFO},
		},
		{
			Name:       "mutex",
			Doc:        "one mutex, global FIFO order, ring-buffer queue, interned keys, AddIfNotPresent and ErrRequeue",
			New:        queueWith(fifo.NewMutex, fifoOptions),
			Guarantees: fifotest.Guarantees{Order: guarantee.OrderFIFO, Ext: true},
		},
		{
			Name:       "sharded",
			Doc:        "keys hashed over independently locked shards, FIFO order per shard, Pop from a random shard with entries",
			New:        queueWith(fifo.NewSharded, fifoOptions),
			Guarantees: fifotest.Guarantees{Order: guarantee.OrderPerShard, Ext: true},
		},
		{
			Name:       "ring",
			Doc:        "sharded key state, queued keys handed to Pop through a lock-free MPMC queue of rings, global FIFO order",
			New:        queueWith(fifo.NewRing, fifoOptions),
			Guarantees: fifotest.Guarantees{Order: guarantee.OrderFIFO, Ext: true},
		},
	}
}

// fifoOptions are the default layout settings with client-go's one FIFO
// setting, the key function.
func fifoOptions(keyFunc cache.KeyFunc) fifo.Options { return fifo.Options{KeyFunc: keyFunc} }

// queueWith adapts a library constructor taking its family's Options to the
// family's registry constructor, whose argument opts turns into those
// Options (default layout settings, which are valid, so Must cannot fail).
func queueWith[A, O any, Q cache.Queue](newQ func(O) (Q, error), opts func(A) O) func(A) cache.Queue {
	return func(a A) cache.Queue { return Must(newQ(opts(a))) }
}

package fifo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/impl"
)

// Guarantees declares what a FIFO implementation promises beyond the
// cache.Queue contract every entry keeps.
type Guarantees struct {
	// Order is the Pop order across different keys.
	Order impl.Order
	// Ext: the implementation keeps the seed behaviours client-go dropped
	// (AddIfNotPresent, ErrRequeue). Suites skip [ext] cases otherwise.
	Ext bool
}

// New constructs a fresh, empty FIFO keyed by keyFunc.
type New func(keyFunc cache.KeyFunc) cache.Queue

// Impls is the FIFO family's registry, client-go's FIFO first.
var Impls = impl.List[New, Guarantees]{
	{
		Name:       impl.Baseline,
		Doc:        "client-go cache.NewFIFO: one RWMutex and cond, item map, slice queue",
		New:        func(keyFunc cache.KeyFunc) cache.Queue { return cache.NewFIFO(keyFunc) },
		Guarantees: Guarantees{Order: impl.OrderFIFO},
	},
}

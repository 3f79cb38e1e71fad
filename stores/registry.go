package stores

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/impl"
)

// Guarantees declares what a store implementation promises beyond the
// cache.ThreadSafeStore contract.
type Guarantees struct {
	// Ext: an IndexFunc error is reported and leaves store and indices
	// consistent instead of panicking as client-go does. Suites skip [ext]
	// cases otherwise.
	Ext bool
}

// New constructs a fresh, empty store with the given indexers.
type New func(indexers cache.Indexers) cache.ThreadSafeStore

// Impls is the store family's registry, client-go's threadSafeMap first.
var Impls = impl.List[New, Guarantees]{
	{
		Name: impl.Baseline,
		Doc:  "client-go cache.NewThreadSafeStore: one RWMutex, item map, index of sets.String",
		New: func(indexers cache.Indexers) cache.ThreadSafeStore {
			return cache.NewThreadSafeStore(indexers, cache.Indices{})
		},
		Guarantees: Guarantees{},
	},
}

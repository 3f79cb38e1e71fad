package registry

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/stores"
	"github.com/queuelab/queuelab/stores/storetest"
)

// Stores is the store family: client-go's threadSafeMap first, then each
// store of package stores with default Options, and what each declares to
// storetest.
func Stores() List[func(indexers cache.Indexers) cache.ThreadSafeStore, storetest.Guarantees] {
	return List[func(indexers cache.Indexers) cache.ThreadSafeStore, storetest.Guarantees]{
		{
			Name: Baseline,
			Doc:  "client-go cache.NewThreadSafeStore: one RWMutex, item map, index of sets.String",
			New: func(indexers cache.Indexers) cache.ThreadSafeStore {
				return cache.NewThreadSafeStore(indexers, cache.Indices{})
			},
			Guarantees: storetest.Guarantees{AtomicTransactions: true, SnapshotScans: true, OrderedUpdates: true},
		},
		{
			Name: "mutex",
			Doc:  "one RWMutex; dense slots, interned index values, int32 member lists with swap-remove",
			New: func(indexers cache.Indexers) cache.ThreadSafeStore {
				return Must(stores.NewMutex(stores.Options{Indexers: indexers}))
			},
			Guarantees: storetest.Guarantees{Ext: true, AtomicTransactions: true, SnapshotScans: true, OrderedUpdates: true},
		},
		{
			Name: "sharded",
			Doc:  "shard.DefaultCount() shards by key hash, each a mutex table with its own index fragment; scans merge shard by shard",
			New: func(indexers cache.Indexers) cache.ThreadSafeStore {
				return Must(stores.NewSharded(stores.Options{Indexers: indexers}))
			},
			Guarantees: storetest.Guarantees{Ext: true, NonBlockingScans: true, OrderedUpdates: true},
		},
		{
			Name: "lockfree",
			Doc:  "lock-free readers: atomic-slot hash map of versions, index postings of atomic slots; writers serialize on one mutex",
			New: func(indexers cache.Indexers) cache.ThreadSafeStore {
				return Must(stores.NewLockFree(stores.Options{Indexers: indexers}))
			},
			Guarantees: storetest.Guarantees{Ext: true, LockFreeReads: true, NonBlockingScans: true},
		},
		{
			Name: "snapshot",
			Doc:  "MVCC: readers load an immutable version (persistent CHAMP maps key → object and, per index, value → key → object); writers path-copy and publish one version per write, transaction or Replace",
			New: func(indexers cache.Indexers) cache.ThreadSafeStore {
				return Must(stores.NewSnapshot(stores.Options{Indexers: indexers}))
			},
			Guarantees: storetest.Guarantees{
				Ext: true, LockFreeReads: true, NonBlockingScans: true,
				AtomicTransactions: true, SnapshotScans: true, OrderedUpdates: true,
			},
		},
	}
}

package stores

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/registry"
)

// Guarantees declares what a store implementation promises beyond the
// cache.ThreadSafeStore contract, which every entry keeps (including that
// Replace is atomic: readers never see a half-replaced store).
type Guarantees struct {
	// Ext: an IndexFunc error is reported and leaves store and indices
	// consistent instead of panicking as client-go does. Suites skip [ext]
	// cases otherwise.
	Ext bool
	// LockFreeReads: Get, List, ListKeys, ByIndex, Index, IndexKeys and
	// ListIndexFuncValues never wait for a lock a writer holds. The suites
	// check it (storetest.WithLockFreeReads).
	LockFreeReads bool
	// NonBlockingScans: no scan (List, ListKeys, ByIndex, Index, IndexKeys,
	// ListIndexFuncValues) holds, for its whole duration, a lock that a
	// per-key writer (Add, Update, Delete, Transaction) needs; a writer waits
	// at most for a bounded slice of a scan. client-go's scans hold the read
	// lock throughout, so its single writer stalls behind every lister.
	// No suite checks it (a scan cannot be paused from outside);
	// BenchmarkStoreScanContention measures the writer's rate under it.
	NonBlockingScans bool
	// AtomicTransactions: readers see a Transaction entirely or not at all,
	// as with client-go. Without it each write of a Transaction is atomic on
	// its own, but a scan may see some of them and not others. [relaxed]
	AtomicTransactions bool
	// SnapshotScans: every List, ListKeys, ByIndex, Index and IndexKeys
	// answer is the store's content at one instant, as with client-go,
	// whose scans hold the read lock throughout. Without it a scan that
	// overlaps writes may combine objects as of different instants — a
	// state the store was never in (object B's new version with object A's
	// old one though A was written first) — while each object returned is
	// still one that was stored under its key, with the index values asked
	// for. A lister that derives a decision from a whole scan (counting
	// replicas, say) can then act on a state that never existed; it sees
	// the true state on its next scan. [relaxed]
	SnapshotScans bool
	// OrderedUpdates: calls see every write to a key at one instant, so
	// once a call of a reader reflects a write (a ByIndex finding the key
	// under its new index value, say), no later call of that reader
	// reflects the key's earlier state (a Get returning the old object).
	// Every store orders inserts and deletes this way; without it an update
	// that changes the object's index values (or its type, or stores nil)
	// may be seen by a scan before a Get sees it, or the reverse, while it
	// is in progress. [relaxed]
	OrderedUpdates bool
}

// New constructs a fresh, empty store with the given indexers.
type New func(indexers cache.Indexers) cache.ThreadSafeStore

// Impls is the store family's registry, client-go's threadSafeMap first.
var Impls = registry.List[New, Guarantees]{
	{
		Name: registry.Baseline,
		Doc:  "client-go cache.NewThreadSafeStore: one RWMutex, item map, index of sets.String",
		New: func(indexers cache.Indexers) cache.ThreadSafeStore {
			return cache.NewThreadSafeStore(indexers, cache.Indices{})
		},
		Guarantees: Guarantees{AtomicTransactions: true, SnapshotScans: true, OrderedUpdates: true},
	},
	{
		Name: "mutex",
		Doc:  "one RWMutex; dense slots, interned index values, int32 member lists with swap-remove",
		New: func(indexers cache.Indexers) cache.ThreadSafeStore {
			return registry.Must(NewMutex(Options{Indexers: indexers}))
		},
		Guarantees: Guarantees{Ext: true, AtomicTransactions: true, SnapshotScans: true, OrderedUpdates: true},
	},
	{
		Name: "sharded",
		Doc:  "shard.DefaultCount() shards by key hash, each a mutex table with its own index fragment; scans merge shard by shard",
		New: func(indexers cache.Indexers) cache.ThreadSafeStore {
			return registry.Must(NewSharded(Options{Indexers: indexers}))
		},
		Guarantees: Guarantees{Ext: true, NonBlockingScans: true, OrderedUpdates: true},
	},
	{
		Name: "lockfree",
		Doc:  "lock-free readers: atomic-slot hash map of versions, index postings of atomic slots; writers serialize on one mutex",
		New: func(indexers cache.Indexers) cache.ThreadSafeStore {
			return registry.Must(NewLockFree(Options{Indexers: indexers}))
		},
		Guarantees: Guarantees{Ext: true, LockFreeReads: true, NonBlockingScans: true},
	},
	{
		Name: "snapshot",
		Doc:  "MVCC: readers load an immutable version (persistent CHAMP maps key → object and, per index, value → key → object); writers path-copy and publish one version per write, transaction or Replace",
		New: func(indexers cache.Indexers) cache.ThreadSafeStore {
			return registry.Must(NewSnapshot(Options{Indexers: indexers}))
		},
		Guarantees: Guarantees{
			Ext: true, LockFreeReads: true, NonBlockingScans: true,
			AtomicTransactions: true, SnapshotScans: true, OrderedUpdates: true,
		},
	},
}

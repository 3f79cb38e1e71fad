// Package stores provides drop-in implementations of client-go's
// cache.ThreadSafeStore (the indexed "threadSafeMap" behind every informer's
// Indexer), each usable as a cache.Indexer and cache.TransactionStore
// through NewIndexer:
//
//	idx := stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, stores.NewMutex(indexers))
//
// Four implementations, listed with client-go's in Impls:
//
//   - Mutex: client-go's one-RWMutex design with a compact index: dense
//     key and object arrays behind an 8-byte-bucket open-addressing key
//     index, interned index values and int32 member lists with O(1)
//     swap-remove. Faster ByIndex, Update and List, about half the memory.
//     Scans hold the read lock, as client-go's do.
//   - Sharded: Mutex's table split over shards by key hash, each with its own
//     lock and index fragment. Writers to different shards proceed in
//     parallel; a scan locks one shard at a time, so a writer waits at most
//     for one shard's part of it. Replace swaps a whole shard generation.
//   - LockFree: readers never lock (versions with an atomic object, an
//     atomic-slot hash map, atomic-slot posting lists); scans never delay
//     the writer. Writers serialize on one mutex. Costs more memory than
//     Mutex, and allocations when keys come and go or index values change.
//   - Snapshot: MVCC. Readers load one immutable version, so every scan is
//     a snapshot and no scan delays the writer, with every guarantee of
//     client-go's store kept; writers path-copy persistent maps and publish
//     one version per write, Transaction or Replace. Costs allocations on
//     every write and more memory than Mutex.
//
// Beyond client-go: an IndexFunc error never panics. The store's Add, Update,
// Replace and Transaction hand an *IndexError to the error handler
// (Options.ErrorHandler; utilruntime.HandleError by default) and the ...Checked
// methods of Store return it; either way the write changes nothing. Returned
// objects are shared, not copied: treat them as read-only. The order of
// List, ListKeys, ByIndex, IndexKeys and Index results is unspecified
// (client-go's IndexKeys happens to sort; ours does not). Sharded's and
// LockFree's scans are not snapshots: under concurrent writes a List may
// combine objects as of different instants (Guarantees.SnapshotScans).
package stores

// Package stores provides drop-in replacements for client-go's
// cache.ThreadSafeStore, the indexed "threadSafeMap" behind every
// informer's Indexer and every lister. Each store is a cache.ThreadSafeStore
// with transactions; NewIndexer turns one into a cache.Indexer and
// cache.TransactionStore, which is what a lister, a SharedIndexInformer or
// a hand-built Reflector loop writes to and reads from:
//
//	store, err := stores.NewSnapshot(stores.Options{Indexers: cache.Indexers{
//		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
//	}})
//	if err != nil { ... }
//	indexer := stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, store)
//	lister := corelisters.NewPodLister(indexer)
//
// # Which store
//
// Every store keeps client-go's sequential behaviour (the same answers to
// the same calls) and an atomic Replace. They differ in what readers may
// observe while a writer runs, in what a reader costs the writer, and in
// memory:
//
//   - Snapshot keeps every guarantee client-go's store keeps — each List,
//     ByIndex or Index answer is the store at one instant, a Transaction is
//     seen whole or not at all, an update is seen by every call at once —
//     and no reader ever holds up the writer: readers load an immutable
//     version (MVCC) and never lock. It is the default store of package
//     informer, and the one to choose when listers scan while the informer
//     writes. It pays allocations on every write and about twice Mutex's
//     memory.
//   - Mutex is client-go's design (one RWMutex) with a compact index:
//     faster ByIndex, Update and List, an update that keeps its index
//     values allocates nothing, and about half client-go's memory. Every
//     guarantee is kept, but, as in client-go, a scan holds the read lock
//     throughout and the writer waits behind it. Choose it for memory, or
//     where scans are rare.
//   - LockFree: readers never lock (atomic-slot hash map and posting
//     lists) and never delay the writer, as with Snapshot, with fewer
//     allocations per write (none for an update that keeps its index
//     values) and more memory than Mutex; in exchange a scan that overlaps
//     writes may combine
//     objects as of different instants, a Transaction may be seen in part,
//     and an update that changes index values may be seen by one call
//     before another.
//   - Sharded: Mutex's table split over shards by key hash, each with its
//     own lock and index fragment. Writers to different shards run in
//     parallel and a scan locks one shard at a time, so a writer waits for
//     at most one shard's part of it; a scan is not a snapshot and a
//     Transaction may be seen in part. Updates are seen in order.
//
// A relaxation matters only to a reader that derives a decision from a
// whole scan (counting replicas, say): it may act on a state that never
// existed, and sees the true state on its next scan. Each object returned
// is always one that was stored under its key, with the index values asked
// for.
//
// # Beyond client-go
//
// An IndexFunc error never panics: Add, Update, Replace and Transaction
// hand an *IndexError to Options.ErrorHandler (utilruntime.HandleError by
// default), the ...Checked methods of Store return it, and NewIndexer's
// Indexer returns it from Add, Update, Replace and Transaction; either way
// the write changes nothing. Options.EmptyOnlyIndexers restores older
// client-go's refusal to add indexers to a non-empty store.
//
// Returned objects are shared, not copied: treat them as read-only. The
// order of List, ListKeys, ByIndex, Index and IndexKeys results is
// unspecified (client-go's IndexKeys happens to sort; ours do not).
//
// The conformance suite every store passes, client-go's included, is
// package storetest.
package stores

// Package storetest is the conformance suite of the threadSafeMap family,
// for any cache.ThreadSafeStore or cache.Indexer (in the shape of
// testing/slogtest: exported functions that run one subtest per property):
//
//   - Run holds a store to SPEC.md's store section and to what client-go's
//     locking gives concurrent readers, each property on a fresh store
//     under a deadlock watchdog;
//   - RunIndexer holds a cache.Indexer built over a store to the Indexer
//     contract (key functions, tombstones, transactions);
//   - Diff runs an operation sequence decoded from bytes against the store
//     and client-go's own, comparing every observable answer after every
//     operation; SeedOps makes such a sequence from a seed, and a fuzz
//     target can hand Diff its input.
//
// What is checked is decided only by the Guarantees the caller declares.
// The suite passes on client-go's implementation with its declaration (a
// suite client-go fails is a wrong suite); [ext] properties (IndexFunc
// errors reported instead of panicking, reads that never wait for a
// writer) and [relaxed] ones (guarantees a store declares it weakens) are
// skipped with a message saying why when not declared.
//
//	func TestMyStore(t *testing.T) {
//		newStore := func(ix cache.Indexers) cache.ThreadSafeStore { return mystore.New(ix) }
//		g := storetest.Guarantees{AtomicTransactions: true, SnapshotScans: true, OrderedUpdates: true}
//		storetest.Run(t, newStore, g)
//		storetest.Diff(t, newStore, g, storetest.SeedOps(1))
//	}
package storetest

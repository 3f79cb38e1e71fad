package storetest

import (
	"testing"

	"github.com/queuelab/queuelab/internal/suite"
)

// Guarantees declares what a store promises beyond the cache.ThreadSafeStore
// contract, which every store keeps (including that Replace is atomic:
// readers never see a half-replaced store). Run, RunIndexer and Diff decide
// from these fields alone which properties to hold a store to: a field left
// false skips the properties that need it, with the reason, so a
// declaration must be exactly what the store keeps. client-go's own store
// declares AtomicTransactions, SnapshotScans and OrderedUpdates; the zero
// value relaxes all three and claims no extension.
type Guarantees struct {
	// Ext: an IndexFunc error is reported and leaves store and indices
	// consistent instead of panicking as client-go does. The suites skip
	// [ext] cases otherwise.
	Ext bool
	// LockFreeReads: Get, List, ListKeys, ByIndex, Index, IndexKeys and
	// ListIndexFuncValues never wait for a lock a writer holds. Run checks
	// it by stopping a writer inside its IndexFunc and reading meanwhile.
	LockFreeReads bool
	// NonBlockingScans: no scan (List, ListKeys, ByIndex, Index, IndexKeys,
	// ListIndexFuncValues) holds, for its whole duration, a lock that a
	// per-key writer (Add, Update, Delete, Transaction) needs; a writer waits
	// at most for a bounded slice of a scan. client-go's scans hold the read
	// lock throughout, so its single writer stalls behind every lister.
	// No property checks it (a scan cannot be paused from outside); the
	// lab's BenchmarkStoreScanContention measures the writer's rate under it.
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

// extPanics is why the IndexFunc-error properties are [ext].
const extPanics = "[ext] client-go panics when an IndexFunc fails"

// runAll runs props, each under the default deadlock watchdog.
func runAll(t *testing.T, props []suite.Property) {
	t.Helper()
	suite.Run(t, 0, props)
}

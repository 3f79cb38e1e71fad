package storetest

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// checkedStore is the error-returning write set of queuelab's stores
// (stores.Store). The [ext] properties use it when the store has it, to check
// the error itself; through the plain interface they check that nothing
// panics and nothing changes.
type checkedStore interface {
	UpdateChecked(key string, obj any) error
	ReplaceChecked(items map[string]any, resourceVersion string) error
	TransactionChecked(txns ...cache.ThreadSafeStoreTransaction) *cache.TransactionError
}

// runRelaxed runs the properties a variant may declare it weakens.
func (s storeSuite) runRelaxed(t *testing.T) {
	relaxed := func(declared bool, why string) string {
		return suite.Unless(declared, "[relaxed] the implementation declares that "+why)
	}
	runAll(t, []suite.Property{
		{Name: "transaction-is-atomic-for-readers",
			Skip: relaxed(s.g.AtomicTransactions, "readers may see a Transaction partly applied"), Run: s.transactionAtomic},
		{Name: "scans-are-snapshots",
			Skip: relaxed(s.g.SnapshotScans, "a scan may mix writes made while it runs"), Run: s.scansAreSnapshots},
		{Name: "updates-are-atomic-across-calls",
			Skip: relaxed(s.g.OrderedUpdates, "calls may see an update that changes index values in different orders"), Run: s.updatesAreAtomic},
	})
}

// runExt runs the [ext] properties, or skips those not declared.
func (s storeSuite) runExt(t *testing.T) {
	ext := suite.Unless(s.g.Ext, extPanics)
	runAll(t, []suite.Property{
		{Name: "index-func-error-in-update-changes-nothing", Skip: ext, Run: s.indexErrorUpdate},
		{Name: "index-func-error-in-replace-changes-nothing", Skip: ext, Run: s.indexErrorReplace},
		{Name: "index-func-error-in-transaction-skips-that-write", Skip: ext, Run: s.indexErrorTransaction},
		{Name: "index-func-error-in-add-indexers-changes-nothing", Skip: ext, Run: s.indexErrorAddIndexers},
		{Name: "reads-do-not-wait-for-a-writer", Skip: suite.Unless(s.g.LockFreeReads,
			"[ext] the implementation does not declare lock-free reads (client-go's wait for its writer's lock)"),
			Run: s.readsDoNotWaitForWriter},
	})
}

// readsDoNotWaitForWriter stops a writer inside its IndexFunc, which every
// store runs as part of the write, and reads meanwhile. A store whose reads
// wait for the writer deadlocks here until the watchdog fails the test.
func (s storeSuite) readsDoNotWaitForWriter(t *testing.T) {
	const blockIndex = "block"
	inWrite, release := make(chan struct{}), make(chan struct{})
	var once sync.Once // the store, and the final check, may index the writer again
	ix := Indexers()
	ix[blockIndex] = func(obj any) ([]string, error) {
		m, err := metaOf(obj)
		if err != nil {
			return nil, err
		}
		if m.GetName() == "writer" {
			once.Do(func() { close(inWrite) })
			<-release
		}
		return []string{"v"}, nil
	}
	st := s.newStore(ix)
	a := object("ns1", "a", "1", "x", "")
	want := put(st, a)
	w := object("ns1", "writer", "2", "x", "")
	written := make(chan struct{})
	go func() {
		defer close(written)
		st.Add(key(w), w)
	}()
	<-inWrite
	verifyExact(t, st, get(st), ix, want) // Get, List(Keys), ByIndex, IndexKeys, ListIndexFuncValues
	// Index, the one read verifyExact does not make (its IndexFunc runs on
	// a, so it does not block here).
	if objs, err := st.Index(blockIndex, a); err != nil || len(objs) != 1 || objs[0] != a {
		t.Errorf("Index(%q, a) during a write = %d objects, %v; want [a]", blockIndex, len(objs), err)
	}
	close(release)
	<-written
	want[key(w)] = w
	verifyExact(t, st, get(st), ix, want)
}

// wantIndexError checks that err reports key, the failing index and the
// IndexFunc's own error.
func wantIndexError(t *testing.T, what string, err error, key string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), failIndex) || !errors.Is(err, errBadObject) {
		t.Errorf("%s: error %v, want one naming key %q and index %q and wrapping the IndexFunc's error", what, err, key, failIndex)
	}
}

func (s storeSuite) indexErrorUpdate(t *testing.T) {
	st := s.newStore(withFail())
	rv := newRVChecker(t, st)
	a := object("ns1", "a", "1", "x", "t1")
	want := put(st, a)
	st.Update(key(a), bad("ns1", "a", "2"))
	st.Add("ns1/b", bad("ns1", "b", "3"))
	verifyExact(t, st, get(st), withFail(), want)
	rv.want("failed writes", "1")
	if cs, ok := st.(checkedStore); ok {
		wantIndexError(t, "UpdateChecked", cs.UpdateChecked(key(a), bad("ns1", "a", "4")), key(a))
		verifyExact(t, st, get(st), withFail(), want)
	}
}

func (s storeSuite) indexErrorReplace(t *testing.T) {
	st := s.newStore(withFail())
	rv := newRVChecker(t, st)
	want := put(st, object("ns1", "a", "1", "x", "t1"))
	st.Replace(map[string]any{"ns1/c": object("ns1", "c", "5", "", ""), "ns1/d": bad("ns1", "d", "5")}, "9")
	verifyExact(t, st, get(st), withFail(), want)
	rv.want("a failed Replace", "1")
	if cs, ok := st.(checkedStore); ok {
		err := cs.ReplaceChecked(map[string]any{"ns1/d": bad("ns1", "d", "5")}, "9")
		wantIndexError(t, "ReplaceChecked", err, "ns1/d")
		verifyExact(t, st, get(st), withFail(), want)
	}
}

func (s storeSuite) indexErrorTransaction(t *testing.T) {
	st := s.newStore(withFail())
	ts := transactional(t, st)
	a := object("ns1", "a", "1", "x", "t1")
	want := put(st, a)
	c := object("ns1", "c", "2", "y", "")
	txns := []cache.ThreadSafeStoreTransaction{
		txn(cache.TransactionTypeAdd, c),
		txn(cache.TransactionTypeAdd, bad("ns1", "d", "3")),
		txn(cache.TransactionTypeUpdate, bad("ns1", "a", "4")),
	}
	ts.Transaction(txns...)
	want[key(c)] = c
	verifyExact(t, st, get(st), withFail(), want)
	newRVChecker(t, st).want("a Transaction whose last write failed", "1")

	cs, ok := st.(checkedStore)
	if !ok {
		return
	}
	st.Delete(key(c))
	delete(want, key(c))
	terr := cs.TransactionChecked(txns...)
	want[key(c)] = c
	verifyExact(t, st, get(st), withFail(), want)
	if terr == nil || len(terr.Errors) != 2 || terr.TotalTransactions != 3 ||
		len(terr.SuccessfulIndices) != 1 || terr.SuccessfulIndices[0] != 0 {
		t.Fatalf("TransactionChecked = %#v, want 2 errors and SuccessfulIndices [0] of 3", terr)
	}
	wantIndexError(t, "TransactionChecked", terr.Errors[0], "ns1/d")
	wantIndexError(t, "TransactionChecked", terr.Errors[1], "ns1/a")
}

func (s storeSuite) indexErrorAddIndexers(t *testing.T) {
	st := s.newStore(Indexers())
	want := put(st, object("ns1", "a", "1", "x", ""), bad("ns1", "b", "1"))
	err := st.AddIndexers(cache.Indexers{failIndex: failIndexFunc, "other": tagsIndexFunc})
	if err == nil || !errors.Is(err, errBadObject) || !strings.Contains(err.Error(), failIndex) {
		t.Errorf("AddIndexers whose IndexFunc fails on a stored object: error %v, want one naming index %q", err, failIndex)
	}
	if got := st.GetIndexers(); len(got) != len(Indexers()) {
		t.Errorf("GetIndexers after a failed AddIndexers has %d indexers, want %d", len(got), len(Indexers()))
	}
	if _, err := st.ByIndex("other", "x"); err == nil {
		t.Errorf("ByIndex on an indexer of a failed AddIndexers succeeded")
	}
	verifyExact(t, st, get(st), Indexers(), want)
}

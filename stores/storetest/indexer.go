package storetest

import (
	"errors"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// RunIndexer runs one subtest per property of the cache.Indexer contract
// (key functions, object-level writes, tombstones, Replace from a list,
// transactions through cache.TransactionStore) against fresh indexers built
// by newIndexer, which must return an empty Indexer with the given key
// function and indexers. The index properties themselves are Run's; g.Ext
// decides whether an IndexFunc error must come back as an error.
func RunIndexer(t *testing.T, newIndexer func(keyFunc cache.KeyFunc, indexers cache.Indexers) cache.Indexer, g Guarantees) {
	t.Helper()
	s := indexerSuite{newIndexer: func(ix cache.Indexers) cache.Indexer {
		return newIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, ix)
	}}
	runAll(t, []suite.Property{
		{Name: "writes-by-object", Run: s.writesByObject},
		{Name: "key-func-error-changes-nothing", Run: s.keyError},
		{Name: "replace-from-list", Run: s.replace},
		{Name: "transaction", Run: s.transaction},
		{Name: "index-func-error-is-returned", Skip: suite.Unless(g.Ext, extPanics), Run: s.indexError},
	})
}

type indexerSuite struct {
	newIndexer func(indexers cache.Indexers) cache.Indexer
}

// getByKey adapts Indexer.GetByKey for the checks.
func getByKey(x cache.Indexer) getter {
	return func(key string) (any, bool) {
		obj, ok, err := x.GetByKey(key)
		return obj, ok && err == nil
	}
}

// mustAdd adds objects and returns the expected content.
func mustAdd(t *testing.T, x cache.Indexer, objs ...any) map[string]any {
	t.Helper()
	want := make(map[string]any, len(objs))
	for _, o := range objs {
		if err := x.Add(o); err != nil {
			t.Fatalf("Add(%s): %v", describe(o), err)
		}
		want[keyOf(o)] = o
	}
	return want
}

func (s indexerSuite) writesByObject(t *testing.T) {
	x := s.newIndexer(Indexers())
	a, b, c := object("ns1", "a", "1", "x", ""), object("ns1", "b", "2", "x", "t1"), object("ns2", "c", "3", "y", "")
	want := mustAdd(t, x, a, b, c)
	if got, ok, err := x.Get(object("ns1", "a", "9", "", "")); err != nil || !ok || got != any(a) {
		t.Errorf("Get by an object with a's key = %v, %v, %v; want a", describe(got), ok, err)
	}
	a2 := object("ns1", "a", "4", "y", "t1")
	if err := x.Update(a2); err != nil {
		t.Fatalf("Update: %v", err)
	}
	want[key(a2)] = a2
	verifyExact(t, x, getByKey(x), Indexers(), want)

	if err := x.Delete(object("ns1", "a", "5", "", "")); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	delete(want, key(a2))
	newRVChecker(t, x).want("Delete of an object at rv=5", "5")
	if err := x.Delete(cache.DeletedFinalStateUnknown{Key: key(b), Obj: b}); err != nil {
		t.Fatalf("Delete of a tombstone: %v", err)
	}
	delete(want, key(b))
	if err := x.Delete(cache.ExplicitKey(key(c))); err != nil {
		t.Fatalf("Delete of an ExplicitKey: %v", err)
	}
	delete(want, key(c))
	verifyExact(t, x, getByKey(x), Indexers(), want)
	x.Bookmark("6")
	newRVChecker(t, x).want("Bookmark 6", "6")
}

func (s indexerSuite) keyError(t *testing.T) {
	x := s.newIndexer(Indexers())
	want := mustAdd(t, x, object("ns1", "a", "1", "x", ""))
	const noMeta = "an object without ObjectMeta"
	for name, call := range map[string]func() error{
		"Add":     func() error { return x.Add(noMeta) },
		"Update":  func() error { return x.Update(noMeta) },
		"Delete":  func() error { return x.Delete(noMeta) },
		"Replace": func() error { return x.Replace([]any{object("ns1", "z", "2", "", ""), noMeta}, "2") },
		"Get": func() error {
			_, _, err := x.Get(noMeta)
			return err
		},
	} {
		if err := call(); !errors.As(err, new(cache.KeyError)) {
			t.Errorf("%s of an object without a key: error %v, want a cache.KeyError", name, err)
		}
	}
	verifyExact(t, x, getByKey(x), Indexers(), want)
}

func (s indexerSuite) replace(t *testing.T) {
	x := s.newIndexer(Indexers())
	mustAdd(t, x, object("ns1", "a", "1", "x", "t1"))
	b, c := object("ns1", "b", "2", "y", "t2"), object("ns2", "c", "3", "y", "")
	if err := x.Replace([]any{b, c}, "10"); err != nil {
		t.Fatalf("Replace: %v", err)
	}
	verifyExact(t, x, getByKey(x), Indexers(), map[string]any{key(b): b, key(c): c})
	newRVChecker(t, x).want("Replace rv=10", "10")
}

func (s indexerSuite) transaction(t *testing.T) {
	x := s.newIndexer(Indexers())
	ts := suite.As[cache.TransactionStore](t, x)
	a := object("ns1", "a", "1", "x", "")
	want := mustAdd(t, x, a)
	b, a2 := object("ns1", "b", "2", "y", ""), object("ns1", "a", "3", "y", "t1")
	terr := ts.Transaction(
		cache.Transaction{Type: cache.TransactionTypeAdd, Object: b},
		cache.Transaction{Type: cache.TransactionTypeAdd, Object: "an object without ObjectMeta"},
		cache.Transaction{Type: cache.TransactionTypeUpdate, Object: a2},
	)
	if terr == nil || terr.TotalTransactions != 3 || len(terr.Errors) != 1 || !errors.As(terr.Errors[0], new(cache.KeyError)) ||
		len(terr.SuccessfulIndices) != 2 || terr.SuccessfulIndices[0] != 0 || terr.SuccessfulIndices[1] != 2 {
		t.Errorf("Transaction with one keyless object = %#v, want 1 KeyError and SuccessfulIndices [0 2] of 3", terr)
	}
	want[key(b)], want[key(a2)] = b, a2
	verifyExact(t, x, getByKey(x), Indexers(), want)
	newRVChecker(t, x).want("Transaction ending at rv=3", "3")
	if terr := ts.Transaction(cache.Transaction{Type: cache.TransactionTypeDelete, Object: b}); terr != nil {
		t.Errorf("Transaction deleting b: %v", terr)
	}
	delete(want, key(b))
	verifyExact(t, x, getByKey(x), Indexers(), want)
}

func (s indexerSuite) indexError(t *testing.T) {
	x := s.newIndexer(withFail())
	want := mustAdd(t, x, object("ns1", "a", "1", "x", ""))
	wantIndexError(t, "Add", x.Add(bad("ns1", "b", "2")), "ns1/b")
	wantIndexError(t, "Update", x.Update(bad("ns1", "a", "3")), "ns1/a")
	wantIndexError(t, "Replace", x.Replace([]any{bad("ns1", "c", "4")}, "4"), "ns1/c")
	verifyExact(t, x, getByKey(x), withFail(), want)
	ts, ok := x.(cache.TransactionStore)
	if !ok {
		return
	}
	c := object("ns1", "c", "5", "y", "")
	terr := ts.Transaction(
		cache.Transaction{Type: cache.TransactionTypeAdd, Object: bad("ns1", "d", "5")},
		cache.Transaction{Type: cache.TransactionTypeAdd, Object: c},
	)
	if terr == nil || len(terr.Errors) != 1 || len(terr.SuccessfulIndices) != 1 || terr.SuccessfulIndices[0] != 1 {
		t.Fatalf("Transaction with one failing IndexFunc = %#v, want 1 error and SuccessfulIndices [1]", terr)
	}
	wantIndexError(t, "Transaction", terr.Errors[0], "ns1/d")
	want[key(c)] = c
	verifyExact(t, x, getByKey(x), withFail(), want)
}

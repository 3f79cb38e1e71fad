package storetest

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// Run runs one subtest per property of the cache.ThreadSafeStore contract
// (SPEC.md's store section, with the concurrent behaviour client-go's
// locking gives) against fresh stores built by newStore, each under a
// deadlock watchdog. g decides which [relaxed] and [ext] properties run;
// the others are skipped with the reason. newStore must return an empty
// store with the given indexers, a different one on every call.
func Run(t *testing.T, newStore func(indexers cache.Indexers) cache.ThreadSafeStore, g Guarantees) {
	t.Helper()
	s := storeSuite{g: g, newStore: newStore}
	runAll(t, []suite.Property{
		{Name: "add-get-delete", Run: s.addGetDelete},
		{Name: "update-moves-key-between-index-values", Run: s.updateMovesKey},
		{Name: "update-changes-type-or-stores-nil", Run: s.updateChangesType},
		{Name: "empty-values-disappear", Run: s.emptyValuesDisappear},
		{Name: "multi-valued-index", Run: s.multiValued},
		{Name: "index-dedups-across-values", Run: s.indexDedups},
		{Name: "unknown-index", Run: s.unknownIndex},
		{Name: "add-indexers", Run: s.addIndexers},
		{Name: "replace-rebuilds-everything", Run: s.replace},
		{Name: "replace-is-atomic-for-readers", Run: s.replaceAtomic},
		{Name: "resource-version", Run: s.resourceVersion},
		{Name: "transaction", Run: s.transaction},
		{Name: "concurrent-readers-and-writers", Run: s.concurrent},
		{Name: "results-belong-to-the-caller", Run: s.resultsBelongToCaller},
		{Name: "inserts-and-deletes-are-atomic-across-calls", Run: s.insertsAndDeletesAreAtomic},
	})
	s.runRelaxed(t)
	s.runExt(t)
}

type storeSuite struct {
	g        Guarantees
	newStore func(indexers cache.Indexers) cache.ThreadSafeStore
}

// get adapts ThreadSafeStore.Get for the checks.
func get(s cache.ThreadSafeStore) getter { return s.Get }

// put adds objects under their suite keys and returns the expected content.
func put(s cache.ThreadSafeStore, objs ...any) map[string]any {
	want := make(map[string]any, len(objs))
	for _, o := range objs {
		k := keyOf(o)
		s.Add(k, o)
		want[k] = o
	}
	return want
}

// keyOf is the suite key of an object built by the fixtures.
func keyOf(o any) string {
	m, err := metaOf(o)
	if err != nil {
		panic(err) // the suite only stores its own fixtures
	}
	if m.GetNamespace() == "" {
		return m.GetName()
	}
	return m.GetNamespace() + "/" + m.GetName()
}

func (s storeSuite) addGetDelete(t *testing.T) {
	st := s.newStore(Indexers())
	if got := st.List(); len(got) != 0 {
		t.Errorf("List of an empty store = %v", got)
	}
	a1, b := object("ns1", "a", "1", "x", ""), object("ns2", "b", "1", "y", "")
	want := put(st, a1, b)
	if got, ok := st.Get(key(a1)); !ok || got != any(a1) {
		t.Fatalf("Get(%q) = %v, %v; want the added object", key(a1), got, ok)
	}
	a2 := object("ns1", "a", "2", "x", "")
	st.Add(key(a2), a2) // Add on an existing key replaces the object
	want[key(a2)] = a2
	verifyExact(t, st, get(st), Indexers(), want)

	st.Delete(key(b))
	delete(want, key(b))
	verifyExact(t, st, get(st), Indexers(), want)

	st.Delete("ns1/missing") // deleting a missing key is a no-op
	st.DeleteWithObject("ns1/missing", object("ns1", "missing", "3", "", ""))
	verifyExact(t, st, get(st), Indexers(), want)

	st.DeleteWithObject(key(a2), a2)
	verifyExact(t, st, get(st), Indexers(), map[string]any{})
	if got, ok := st.Get(key(a2)); ok {
		t.Errorf("Get after delete = %v, true", got)
	}
}

func (s storeSuite) updateMovesKey(t *testing.T) {
	st := s.newStore(Indexers())
	a := object("ns1", "a", "1", "x", "")
	want := put(st, a, object("ns1", "b", "1", "x", ""))
	for _, next := range []any{
		object("ns1", "a", "2", "y", ""), // x → y
		object("ns1", "a", "3", "", ""),  // y → no value
		object("ns1", "a", "4", "x", ""), // no value → x
	} {
		st.Update(keyOf(next), next)
		want[keyOf(next)] = next
		verifyExact(t, st, get(st), Indexers(), want)
	}
}

// updateChangesType: nothing in client-go stops a key's object from
// changing its dynamic type, or from being nil (stored without index
// values); a store that keeps objects in typed or atomic cells must handle
// both, whether or not the index values change with them.
func (s storeSuite) updateChangesType(t *testing.T) {
	st := s.newStore(Indexers())
	want := put(st, object("ns1", "a", "1", "x", "t1"), object("ns1", "b", "1", "x", ""))
	for _, next := range []any{
		unstructuredObject("ns1", "a", "2", "x", "t1"), // same values, another type
		unstructuredObject("ns1", "a", "3", "y", "t2"), // new values
		nil,
		nil,
		object("ns1", "a", "4", "x", "t1"),
		unstructuredObject("ns1", "a", "5", "x", "t1"),
	} {
		st.Update("ns1/a", next)
		want["ns1/a"] = next
		verifyExact(t, st, get(st), Indexers(), want)
	}
}

func (s storeSuite) emptyValuesDisappear(t *testing.T) {
	st := s.newStore(Indexers())
	a, b := object("ns1", "a", "1", "x", "t1"), object("ns2", "b", "1", "x", "t1")
	want := put(st, a, b)
	st.Delete(key(a))
	delete(want, key(a))
	verifyExact(t, st, get(st), Indexers(), want) // x and t1 still have b; ns1 is gone
	b2 := object("ns2", "b", "2", "z", "")
	st.Update(key(b2), b2)
	want[key(b2)] = b2
	verifyExact(t, st, get(st), Indexers(), want) // x and t1 are gone
	st.Delete(key(b2))
	verifyExact(t, st, get(st), Indexers(), map[string]any{})
}

func (s storeSuite) multiValued(t *testing.T) {
	st := s.newStore(Indexers())
	want := put(st,
		object("ns1", "a", "1", "", "t1,t2"),
		object("ns1", "b", "1", "", "t2,t3"),
		object("ns1", "c", "1", "", "t4,t4"), // duplicate values count once
	)
	verifyExact(t, st, get(st), Indexers(), want)
	a2 := object("ns1", "a", "2", "", "t3")
	st.Update(key(a2), a2)
	want[key(a2)] = a2
	verifyExact(t, st, get(st), Indexers(), want) // t1 is gone, t3 has a and b
}

func (s storeSuite) indexDedups(t *testing.T) {
	st := s.newStore(Indexers())
	a, b := object("ns1", "a", "1", "x", "t1,t2"), object("ns2", "b", "1", "y", "t2")
	want := put(st, a, b, object("ns2", "c", "1", "y", "t9"))
	cases := []struct {
		index string
		probe any
		keys  []string
	}{
		{tagsIndex, object("p", "p", "1", "", "t1,t2"), []string{key(a), key(b)}},
		{tagsIndex, object("p", "p", "1", "", "t2,t1,t2"), []string{key(a), key(b)}},
		{tagsIndex, object("p", "p", "1", "", ""), nil},
		{nsIndex, object("ns2", "p", "1", "", ""), []string{"ns2/b", "ns2/c"}},
		{appIndex, object("p", "p", "1", "x", ""), []string{key(a)}},
	}
	for _, tc := range cases {
		got, err := st.Index(tc.index, tc.probe)
		if err != nil {
			t.Errorf("Index(%q, %s): %v", tc.index, describe(tc.probe), err)
			continue
		}
		if d := diffObjects(got, want, tc.keys); d != "" {
			t.Errorf("Index(%q, %s): %s", tc.index, describe(tc.probe), d)
		}
	}
}

func (s storeSuite) unknownIndex(t *testing.T) {
	st := s.newStore(Indexers())
	put(st, object("ns1", "a", "1", "x", ""))
	const name = "no-such-index"
	if _, err := st.ByIndex(name, "x"); !mentions(err, name) {
		t.Errorf("ByIndex on an unknown index: error %v does not name it", err)
	}
	if _, err := st.IndexKeys(name, "x"); !mentions(err, name) {
		t.Errorf("IndexKeys on an unknown index: error %v does not name it", err)
	}
	if _, err := st.Index(name, object("ns1", "p", "1", "x", "")); !mentions(err, name) {
		t.Errorf("Index on an unknown index: error %v does not name it", err)
	}
	if got := st.ListIndexFuncValues(name); len(got) != 0 {
		t.Errorf("ListIndexFuncValues on an unknown index = %v, want empty", got)
	}
	got, err := st.ByIndex(appIndex, "no-such-value")
	if err != nil || len(got) != 0 {
		t.Errorf("ByIndex for an absent value = %v, %v; want empty, nil", got, err)
	}
}

func (s storeSuite) addIndexers(t *testing.T) {
	base := Indexers()
	delete(base, tagsIndex)
	st := s.newStore(base)
	want := put(st, object("ns1", "a", "1", "x", "t1,t2"), object("ns2", "b", "1", "y", "t2"))
	if err := st.AddIndexers(cache.Indexers{tagsIndex: tagsIndexFunc}); err != nil {
		t.Fatalf("AddIndexers on a non-empty store: %v", err)
	}
	verifyExact(t, st, get(st), Indexers(), want) // the new index covers existing items

	err := st.AddIndexers(cache.Indexers{appIndex: tagsIndexFunc, "other": tagsIndexFunc})
	if !mentions(err, appIndex) {
		t.Errorf("AddIndexers with an existing name: error %v does not name the conflict", err)
	}
	if got := st.GetIndexers(); len(got) != len(Indexers()) {
		t.Errorf("GetIndexers after a conflicting AddIndexers has %d indexers, want %d", len(got), len(Indexers()))
	}
	c := object("ns1", "c", "1", "x", "t3")
	st.Add(key(c), c)
	want[key(c)] = c
	verifyExact(t, st, get(st), Indexers(), want) // later writes maintain the new index
}

func (s storeSuite) replace(t *testing.T) {
	st := s.newStore(Indexers())
	put(st, object("ns1", "a", "1", "x", "t1"), object("ns1", "b", "1", "x", "t1"))
	b2, c := object("ns1", "b", "2", "y", "t2"), object("ns3", "c", "2", "y", "")
	want := map[string]any{key(b2): b2, key(c): c}
	st.Replace(map[string]any{key(b2): b2, key(c): c}, "7")
	verifyExact(t, st, get(st), Indexers(), want)
	st.Replace(map[string]any{}, "8")
	verifyExact(t, st, get(st), Indexers(), map[string]any{})
	verifyExact(t, st, get(st), Indexers(), put(st, object("ns1", "a", "2", "x", "t1")))
}

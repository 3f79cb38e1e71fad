package stores

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
)

// snapContent is what a version holds, as plain maps: key → object, and per
// index, value → its keys (sorted).
type snapContent struct {
	items   map[string]any
	indexes map[string]map[string][]string
}

// contentOf reads st, checking that every index member is the object the
// version's object map holds under that key.
func contentOf(t *testing.T, st *snapState) snapContent {
	t.Helper()
	c := snapContent{items: map[string]any{}, indexes: map[string]map[string][]string{}}
	st.items.all(func(e snapItem) bool {
		c.items[e.key] = e.obj
		return true
	})
	for _, col := range st.cols {
		values := map[string][]string{}
		col.byValue.all(func(sv snapValue) bool {
			if sv.members.n == 0 {
				t.Errorf("index %s keeps value %q with no members", col.name, sv.value)
			}
			sv.members.all(func(e snapItem) bool {
				if c.items[e.key] != e.obj {
					t.Errorf("index %s value %q holds another object for %s than the object map", col.name, sv.value, e.key)
				}
				values[sv.value] = append(values[sv.value], e.key)
				return true
			})
			slices.Sort(values[sv.value])
			return true
		})
		c.indexes[col.name] = values
	}
	return c
}

// TestSnapshotBulkBuilds: Replace and AddIndexers build their version in
// bulk, in place; the result must be what the same writes made one at a
// time give, and a version taken before (as a reader holds it) must keep
// exactly its content through the bulk build and the writes after it.
func TestSnapshotBulkBuilds(t *testing.T) {
	// Two values per object, one repeated: a key joins a value once.
	both := func(obj any) ([]string, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		return []string{m.GetNamespace(), "all", m.GetNamespace()}, nil
	}
	indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, "both": both}
	newStore := func() *Snapshot {
		s, err := NewSnapshot(Options{Indexers: indexers})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	items := func(objs []*metav1.PartialObjectMetadata) map[string]any {
		m := map[string]any{}
		for _, o := range objs {
			m[testobj.Key(o)] = o
		}
		return m
	}
	// The second population overlaps the first (obj-0 to obj-2999 in other
	// namespaces) and adds to it.
	first := testobj.Population(3000, 7, 13)
	second := testobj.Population(5000, 11, 17)
	for _, o := range second {
		o.ResourceVersion = "2"
	}

	s := newStore()
	s.Replace(items(first), "1")
	v1 := s.cur.Load()
	want1 := contentOf(t, v1)
	if want := oneByOne(t, newStore(), first); !reflect.DeepEqual(want1, want) {
		t.Fatalf("Replace built other content than Adds of the same objects")
	}
	s.Replace(items(second), "2")
	v2 := s.cur.Load()
	if got := contentOf(t, v1); !reflect.DeepEqual(got, want1) {
		t.Fatalf("a Replace changed the version before it")
	}
	want2 := contentOf(t, v2)
	if want := oneByOne(t, newStore(), second); !reflect.DeepEqual(want2, want) {
		t.Fatalf("Replace over content built other content than Adds of the same objects")
	}

	if err := s.AddIndexers(cache.Indexers{testobj.AppLabel: testobj.LabelIndex}); err != nil {
		t.Fatal(err)
	}
	v3 := s.cur.Load()
	ref := newStore()
	if err := ref.AddIndexers(cache.Indexers{testobj.AppLabel: testobj.LabelIndex}); err != nil {
		t.Fatal(err)
	}
	if got, want := contentOf(t, v3), oneByOne(t, ref, second); !reflect.DeepEqual(got, want) {
		t.Fatalf("AddIndexers built another index than Adds with the indexer in place")
	}

	// Writes after the bulk builds copy the built nodes, never change them.
	want3 := contentOf(t, v3)
	for i, o := range second[:500] {
		if i%2 == 0 {
			s.Delete(testobj.Key(o))
		} else {
			s.Update(testobj.Key(o), testobj.Meta("moved", strconv.Itoa(i), "3", testobj.AppLabel, "x"))
		}
	}
	s.Replace(nil, "4")
	if got := contentOf(t, s.cur.Load()); len(got.items) != 0 || len(got.indexes[cache.NamespaceIndex]) != 0 {
		t.Errorf("an empty Replace left %d objects", len(got.items))
	}
	for name, v := range map[string]struct {
		st   *snapState
		want snapContent
	}{"1": {v1, want1}, "2": {v2, want2}, "3": {v3, want3}} {
		if got := contentOf(t, v.st); !reflect.DeepEqual(got, v.want) {
			t.Errorf("version %s changed after later writes", name)
		}
	}
	if !maps.Equal(contentOf(t, v2).items, items(second)) {
		t.Errorf("version 2 does not hold the objects replaced into it")
	}
}

// oneByOne returns the content of s after adding objs one at a time.
func oneByOne(t *testing.T, s *Snapshot, objs []*metav1.PartialObjectMetadata) snapContent {
	t.Helper()
	for _, o := range objs {
		s.Add(testobj.Key(o), o)
	}
	return contentOf(t, s.cur.Load())
}

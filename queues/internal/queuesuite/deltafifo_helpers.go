package queuesuite

import (
	"errors"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// knownStore returns a KnownObjects store holding objs.
func knownStore(objs ...*metav1.PartialObjectMetadata) cache.Store {
	s := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	for _, o := range objs {
		_ = s.Add(o)
	}
	return s
}

// tomb is the tombstone of name holding last.
func tomb(name string, last any) cache.DeletedFinalStateUnknown {
	return cache.DeletedFinalStateUnknown{Key: key(name), Obj: last}
}

// wantDeltas asserts item is a cache.Deltas rendering as want.
func wantDeltas(t *testing.T, item any, want string) {
	t.Helper()
	if _, ok := item.(cache.Deltas); !ok {
		t.Errorf("got %T, want cache.Deltas %s", item, want)
		return
	}
	if got := describeOne(item); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// wantDrained drains q and asserts what came out, one rendering per key,
// in any order.
func wantDrained(t *testing.T, q cache.Queue, want ...string) {
	t.Helper()
	var got []string
	for _, p := range drain(t, q) {
		if _, ok := p.item.(cache.Deltas); !ok {
			t.Errorf("popped %T, want cache.Deltas", p.item)
		}
		got = append(got, describeOne(p.item))
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("drained %v, want %v", got, want)
	}
}

// unreliableKnown lists keys whose objects it cannot produce: GetByKey of
// "broken" fails, any other key does not exist.
type unreliableKnown struct{ keys []string }

func (u unreliableKnown) ListKeys() []string { return u.keys }

func (u unreliableKnown) GetByKey(k string) (any, bool, error) {
	if k == key("broken") {
		return nil, false, errors.New("lookup failed")
	}
	return nil, false, nil
}

// recordingTransformer records the objects it transforms and returns a
// copy whose resourceVersion carries a "t".
type recordingTransformer struct{ seen []string }

func (r *recordingTransformer) transform(o any) (any, error) {
	m := o.(*metav1.PartialObjectMetadata)
	r.seen = append(r.seen, m.Name+"@"+m.ResourceVersion)
	c := m.DeepCopy()
	c.ResourceVersion += "t"
	return c, nil
}

func (r *recordingTransformer) failing(any) (any, error) { return nil, errors.New("transform failed") }

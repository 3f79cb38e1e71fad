package stores

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
)

// metaAccessorOnly carries metadata only through metav1.ObjectMetaAccessor,
// the second way meta.Accessor finds it.
type metaAccessorOnly struct{ m *metav1.ObjectMeta }

func (o metaAccessorOnly) GetObjectMeta() metav1.Object {
	if o.m == nil {
		return nil // meta.Accessor reports an error
	}
	return o.m
}

// TestNamespaceFastPathMatchesClientGo: for cache.MetaNamespaceIndexFunc,
// values computes the namespace itself; it must answer exactly what the
// function would, error included, for every kind of object meta.Accessor
// distinguishes.
func TestNamespaceFastPathMatchesClientGo(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetNamespace("u-ns")
	u.SetName("u")
	objs := []any{
		testobj.Meta("ns-a", "a", "1"),
		testobj.Meta("", "cluster-scoped", "1"),
		u,
		metaAccessorOnly{&metav1.ObjectMeta{Namespace: "via-accessor"}},
		metaAccessorOnly{}, // accessor without metadata: an error
		"not an object",
	}
	f := newIndexFn(cache.NamespaceIndex, cache.MetaNamespaceIndexFunc)
	if !f.namespace {
		t.Fatal("cache.MetaNamespaceIndexFunc not recognised")
	}
	for _, obj := range objs {
		want, wantErr := cache.MetaNamespaceIndexFunc(obj)
		got, err := f.values("key", obj)
		if (err != nil) != (wantErr != nil) || (err == nil && !slices.Equal(got, want)) {
			t.Errorf("%T %v: values = %q, %v; MetaNamespaceIndexFunc = %q, %v", obj, obj, got, err, want, wantErr)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = f.values("key", objs[0]) }); n != 0 {
		t.Errorf("fast path allocates %v times per call", n)
	}
}

func TestNamespaceFastPathOnlyForTheRealFunction(t *testing.T) {
	wrapped := func(obj any) ([]string, error) { return cache.MetaNamespaceIndexFunc(obj) }
	for name, fn := range map[string]cache.IndexFunc{"wrapper": wrapped, "label": testobj.LabelIndex, "nil": nil} {
		if newIndexFn("x", fn).namespace {
			t.Errorf("%s taken for cache.MetaNamespaceIndexFunc", name)
		}
	}
}

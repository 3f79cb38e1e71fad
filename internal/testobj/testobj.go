// Package testobj builds small, real Kubernetes objects for tests and
// benchmarks: *metav1.PartialObjectMetadata carries a full ObjectMeta (so
// cache.MetaNamespaceKeyFunc and every meta.Accessor-based index function
// work) without the weight of a full Pod.
package testobj

import (
	"maps"
	"strconv"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// AppLabel is the label Population sets and LabelIndex indexes.
const AppLabel = "app"

// Meta returns an object with the given namespace, name and resourceVersion;
// labels are given as alternating key, value strings.
func Meta(namespace, name, resourceVersion string, labels ...string) *metav1.PartialObjectMetadata {
	obj := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: resourceVersion},
	}
	if len(labels) > 0 {
		obj.Labels = make(map[string]string, len(labels)/2)
		for i := 0; i+1 < len(labels); i += 2 {
			obj.Labels[labels[i]] = labels[i+1]
		}
	}
	return obj
}

// Population returns n objects deterministically spread over namespaces
// ("ns-<i mod namespaces>") and over labelValues values of AppLabel
// ("app-<i mod labelValues>"), named "obj-<i>", resourceVersion "1".
func Population(n, namespaces, labelValues int) []*metav1.PartialObjectMetadata {
	objs := make([]*metav1.PartialObjectMetadata, n)
	for i := range objs {
		objs[i] = Meta("ns-"+strconv.Itoa(i%namespaces), "obj-"+strconv.Itoa(i), "1",
			AppLabel, "app-"+strconv.Itoa(i%labelValues))
	}
	return objs
}

// Key returns obj's namespace/name key; objects built here always have one.
func Key(obj *metav1.PartialObjectMetadata) string {
	if obj.Namespace == "" {
		return obj.Name
	}
	return obj.Namespace + "/" + obj.Name
}

// LabelIndex indexes objects by their AppLabel value (none if unset).
//
// It allocates nothing: the result for a value is one shared single-element
// slice, interned on first use, so a store benchmark measures the store and
// not this fixture. That is fair to every store, client-go's included, since
// an IndexFunc's result is only ever read (client-go's threadSafeMap and the
// stores of this lab never modify or keep it); callers must not modify it
// either. The first 4096 distinct values are interned; more are allocated.
func LabelIndex(obj any) ([]string, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	if v, ok := m.GetLabels()[AppLabel]; ok {
		return interned(v), nil
	}
	return nil, nil
}

// labelValues maps a label value to its shared []string{value}. The map is
// replaced, never modified, when a value is added (copy on write), so a
// lookup is a plain map read; maxInterned bounds its size for callers that
// feed LabelIndex unbounded values (past it, results are allocated). A
// sync.Map would do, at twice the cost of a lookup, which every store's
// update pays.
var (
	labelValues   atomic.Pointer[map[string][]string]
	labelValuesMu sync.Mutex
)

const maxInterned = 1 << 12

func interned(v string) []string {
	if m := labelValues.Load(); m != nil {
		if s, ok := (*m)[v]; ok {
			return s
		}
	}
	labelValuesMu.Lock()
	defer labelValuesMu.Unlock()
	m := make(map[string][]string)
	if old := labelValues.Load(); old != nil {
		if s, ok := (*old)[v]; ok {
			return s
		}
		if len(*old) >= maxInterned {
			return []string{v}
		}
		m = maps.Clone(*old)
	}
	m[v] = []string{v}
	labelValues.Store(&m)
	return m[v]
}

// Indexers returns the two indexers the lab's store benchmarks use:
// cache.NamespaceIndex and "app" (LabelIndex).
func Indexers() cache.Indexers {
	return cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		AppLabel:             LabelIndex,
	}
}

func metaOf(obj any) (metav1.Object, error) {
	if m, ok := obj.(metav1.Object); ok {
		return m, nil
	}
	return nil, &cache.KeyError{Obj: obj, Err: errNotMeta}
}

type notMetaError struct{}

func (notMetaError) Error() string { return "object does not carry metav1.ObjectMeta" }

var errNotMeta error = notMetaError{}

package storetest

import (
	"errors"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
)

// The suite's indexers: namespace (one value), app (zero or one value) and
// tags (zero, one or several values, duplicates included).
const (
	nsIndex   = cache.NamespaceIndex
	appIndex  = testobj.AppLabel
	tagsIndex = "tags"
	// failIndex fails for objects labelled bad=true ([ext] properties).
	failIndex = "fail"
)

// Indexers returns the indexers the suite builds stores with.
func Indexers() cache.Indexers {
	return cache.Indexers{
		nsIndex:   cache.MetaNamespaceIndexFunc,
		appIndex:  testobj.LabelIndex,
		tagsIndex: tagsIndexFunc,
	}
}

// withFail returns Indexers plus failIndex.
func withFail() cache.Indexers {
	ix := Indexers()
	ix[failIndex] = failIndexFunc
	return ix
}

// tagsIndexFunc splits the "tags" label on commas.
func tagsIndexFunc(obj any) ([]string, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	tags, ok := m.GetLabels()["tags"]
	if !ok || tags == "" {
		return nil, nil
	}
	return strings.Split(tags, ","), nil
}

var errBadObject = errors.New("object labelled bad=true")

func failIndexFunc(obj any) ([]string, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	if m.GetLabels()["bad"] == "true" {
		return nil, errBadObject
	}
	return []string{"ok"}, nil
}

func metaOf(obj any) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, errors.New("not a metav1.Object")
	}
	return m, nil
}

// object returns a fresh object; app "" leaves the app label unset, tags ""
// leaves the tags label unset.
func object(ns, name, rv, app, tags string) *metav1.PartialObjectMetadata {
	var labels []string
	if app != "" {
		labels = append(labels, testobj.AppLabel, app)
	}
	if tags != "" {
		labels = append(labels, "tags", tags)
	}
	return testobj.Meta(ns, name, rv, labels...)
}

// unstructuredObject is object as an *unstructured.Unstructured: the same
// metadata in another dynamic type.
func unstructuredObject(ns, name, rv, app, tags string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetResourceVersion(rv)
	u.SetLabels(object(ns, name, rv, app, tags).Labels)
	return u
}

// bad returns an object that failIndex rejects.
func bad(ns, name, rv string) *metav1.PartialObjectMetadata {
	return testobj.Meta(ns, name, rv, "bad", "true")
}

// key is the storage key the suite uses for o.
func key(o *metav1.PartialObjectMetadata) string { return testobj.Key(o) }

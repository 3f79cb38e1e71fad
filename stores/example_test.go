package stores_test

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/stores"
)

// A Snapshot store behind an Indexer, as an informer keeps its objects: an
// IndexFunc that fails rejects the write instead of panicking, and the
// store keeps the previous object.
func Example() {
	byApp := func(obj any) ([]string, error) {
		app, ok := obj.(metav1.Object).GetLabels()["app"]
		if !ok {
			return nil, fmt.Errorf("%s has no app label", obj.(metav1.Object).GetName())
		}
		return []string{app}, nil
	}
	store, err := stores.NewSnapshot(stores.Options{Indexers: cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		"app":                byApp,
	}})
	if err != nil {
		panic(err)
	}
	indexer := stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, store)

	pod := func(name, rv string, labels map[string]string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: name, ResourceVersion: rv, Labels: labels,
		}}
	}
	for _, p := range []*metav1.PartialObjectMetadata{
		pod("web-1", "1", map[string]string{"app": "web"}),
		pod("web-2", "2", map[string]string{"app": "web"}),
		pod("db-1", "3", map[string]string{"app": "db"}),
	} {
		if err := indexer.Add(p); err != nil {
			panic(err)
		}
	}
	err = indexer.Update(pod("db-1", "4", nil))
	fmt.Println("update without a label:", err)

	web, _ := indexer.IndexKeys("app", "web")
	slices.Sort(web)
	db, _ := indexer.ByIndex("app", "db")
	fmt.Println("app=web:", web)
	fmt.Println("app=db still at resourceVersion", db[0].(metav1.Object).GetResourceVersion())
	// Output:
	// update without a label: unable to calculate an index entry for key "default/db-1" on index "app": db-1 has no app label
	// app=web: [default/web-1 default/web-2]
	// app=db still at resourceVersion 3
}

package testobj

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// PodsListerWatcher lists the named pods in "default" at resource version
// "1" and then watches a stream that never changes: a clientset's pods()
// for examples that run a real Reflector without an API server.
func PodsListerWatcher(names ...string) cache.ListerWatcher {
	lw, _ := PodsWatch(names...)
	return lw
}

// PodsWatch is PodsListerWatcher with its watch stream handed to the
// caller, so a test can send live events after the initial list.
func PodsWatch(names ...string) (cache.ListerWatcher, *watch.FakeWatcher) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for _, name := range names {
		list.Items = append(list.Items, corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: metav1.NamespaceDefault, Name: name, ResourceVersion: "1"}})
	}
	fw := watch.NewFake()
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return list.DeepCopy(), nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return fw, nil
		},
	}, noWatchList{}), fw
}

// noWatchList tells the Reflector that this client cannot stream the initial
// list as watch events (a fake has no API server behind it), so it lists.
type noWatchList struct{}

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

package consumer_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/deltafifo/consumer"
	"github.com/queuelab/queuelab/queues/workq"
	"github.com/queuelab/queuelab/stores"
)

// An informer assembled from queuelab parts where a controller would call
// cache.NewIndexerInformer: client-go's own controller and Reflector, with
// queuelab's DeltaFIFO between them, queuelab's lock-free store as the
// Indexer, and a queuelab work queue fed by the event handler.
func Example() {
	store, err := stores.NewLockFree(stores.Options{
		Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
	})
	if err != nil {
		panic(err)
	}
	indexer := stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, store)
	fifo, err := deltafifo.NewMutex(deltafifo.Options{DeltaFIFOOptions: cache.DeltaFIFOOptions{
		KnownObjects:          indexer, // so relists turn vanished objects into deletions
		EmitDeltaTypeReplaced: true,
	}})
	if err != nil {
		panic(err)
	}
	base, err := workq.NewMutex[string](workq.Options{})
	if err != nil {
		panic(err)
	}
	queue, err := workq.NewRateLimiting(base, workqueue.DefaultTypedControllerRateLimiter[string](), workq.LayerOptions{})
	if err != nil {
		panic(err)
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	}

	ctrl := cache.New(&cache.Config{
		Queue:         fifo,
		ListerWatcher: podsListerWatcher("web-1", "web-2", "db-0"),
		ObjectType:    &corev1.Pod{},
		Process:       consumer.New(indexer, handler).Process,
	})
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	running.Go(func() { ctrl.RunWithContext(ctx) })
	cache.WaitForCacheSync(ctx.Done(), ctrl.HasSynced)

	// A worker would Get, reconcile (reading the object back through the
	// indexer) and Done; here we just drain what the initial list queued.
	var keys []string
	for queue.Len() > 0 {
		key, _ := queue.Get()
		keys = append(keys, key)
		queue.Forget(key)
		queue.Done(key)
	}
	slices.Sort(keys)
	inDefault, _ := indexer.ByIndex(cache.NamespaceIndex, metav1.NamespaceDefault)
	fmt.Println("queued:", keys)
	fmt.Println("pods in default:", len(inDefault))

	cancel()
	running.Wait()
	queue.ShutDown()
	// Output:
	// queued: [default/db-0 default/web-1 default/web-2]
	// pods in default: 3
}

// podsListerWatcher lists the named pods in "default" and then watches a
// stream that never changes, standing in for a clientset's pods().
func podsListerWatcher(names ...string) cache.ListerWatcher {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for _, name := range names {
		list.Items = append(list.Items, corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: metav1.NamespaceDefault, Name: name, ResourceVersion: "1"}})
	}
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return list.DeepCopy(), nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
	}, noWatchList{})
}

// noWatchList tells the Reflector that this client cannot stream the initial
// list as watch events (a fake has no API server behind it), so it lists.
type noWatchList struct{}

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

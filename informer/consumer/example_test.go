package consumer_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer/consumer"
	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/queues/deltafifo"
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
	queue, err := workq.NewMutex[string](workq.Options{}) // a controller adds its rate limiter on top
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

	apply, err := consumer.New(consumer.Options{Store: indexer, Handler: handler})
	if err != nil {
		panic(err)
	}
	ctrl := cache.New(&cache.Config{
		Queue:         fifo,
		ListerWatcher: testobj.PodsListerWatcher("web-1", "web-2", "db-0"),
		ObjectType:    &corev1.Pod{},
		Process:       apply.Process,
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

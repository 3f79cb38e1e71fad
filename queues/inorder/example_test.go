package inorder_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/informer/consumer"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/stores"
)

// An informer's plumbing as client-go v0.37 assembles it — Reflector, an
// in-order queue in atomic mode, batches applied to the Indexer in one
// transaction — with queuelab's lock-free queue and store in place of
// RealFIFO and threadSafeMap.
func Example() {
	store, err := stores.NewLockFree(stores.Options{Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}})
	if err != nil {
		panic(err)
	}
	indexer := stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, store)
	queue, err := inorder.NewLockFree(inorder.Options{}) // the zero Options: what informers build
	if err != nil {
		panic(err)
	}
	var mu sync.Mutex
	var added []string
	apply, err := consumer.NewWithOptions(consumer.Options{
		Store: indexer,
		Handler: cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
			mu.Lock()
			defer mu.Unlock()
			added = append(added, obj.(*corev1.Pod).Name)
		}},
	})
	if err != nil {
		panic(err)
	}
	ctrl := cache.New(&cache.Config{
		Queue:         queue,
		ListerWatcher: testobj.PodsListerWatcher("web-1", "web-2", "db-0"),
		ObjectType:    &corev1.Pod{},
		Process:       apply.Process,      // ReplacedAll, SyncAll, Bookmark and lone events
		ProcessBatch:  apply.ProcessBatch, // runs of distinct keys, one Transaction each
	})
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	running.Go(func() { ctrl.RunWithContext(ctx) })
	cache.WaitForCacheSync(ctx.Done(), ctrl.HasSynced)

	mu.Lock()
	slices.Sort(added)
	fmt.Println("added:", added)
	mu.Unlock()
	fmt.Println("pods in the indexer:", len(indexer.ListKeys()))
	cancel()
	running.Wait()
	// Output:
	// added: [db-0 web-1 web-2]
	// pods in the indexer: 3
}

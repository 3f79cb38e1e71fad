package informer_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/stores"
)

// An informer over the lock-free in-order FIFO and a sharded store, each
// configured with its own options, feeding a handler and a namespace index.
// The Source stands in for an API server.
func Example() {
	src := informertest.NewSource(informertest.Pod("default", "web-1", "web"), informertest.Pod("default", "web-2", "web"))
	inf, err := informer.NewSharedIndexInformer(src.ListerWatcher(), &corev1.Pod{}, informer.Options{
		SharedIndexInformerOptions: cache.SharedIndexInformerOptions{
			Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		},
		FIFO:  informer.InOrderFIFO(inorder.NewLockFree, inorder.Options{BatchSize: 256}),
		Store: informer.StoreOf(stores.NewSharded, stores.Options{Shards: 16}),
	})
	if err != nil {
		panic(err)
	}
	added := make(chan string, 3)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { added <- obj.(*corev1.Pod).Name },
	}); err != nil {
		panic(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	running.Go(func() { inf.RunWithContext(ctx) })
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	initial := []string{<-added, <-added}
	slices.Sort(initial) // the list's order is the server's
	fmt.Println(initial)
	src.Create(informertest.Pod("default", "db-0", "db"))
	fmt.Println(<-added)
	pods, err := inf.GetIndexer().ByIndex(cache.NamespaceIndex, "default")
	fmt.Println(len(pods), err)

	cancel()
	running.Wait()
	// Output:
	// [web-1 web-2]
	// db-0
	// 3 <nil>
}

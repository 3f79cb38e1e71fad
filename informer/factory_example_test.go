package informer_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/stores"
)

// podListWatch lists and watches pods through client, as the generated
// pod informer does.
func podListWatch(client kubernetes.Interface, namespace string) cache.ListerWatcher {
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().Pods(namespace).List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return client.CoreV1().Pods(namespace).Watch(ctx, opts)
		},
	}, client)
}

// podInformerFor registers this package's informer as the factory's pod
// informer. Registered first, it is what every later lookup of the pod type
// gets, the generated typed informer and lister included.
func podInformerFor(factory informers.SharedInformerFactory, newInformer informer.Func) cache.SharedIndexInformer {
	return factory.InformerFor(&corev1.Pod{}, func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return newInformer(podListWatch(client, metav1.NamespaceAll), &corev1.Pod{}, resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	})
}

// A controller built on client-go's informer factory gets the lab's
// informer through InformerFor; the generated typed lister then reads the
// lab's store.
func ExampleNewInformerFunc_informerFactory() {
	client := fake.NewClientset(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-2"}},
	)
	newInformer, err := informer.NewInformerFunc(informer.Options{Store: informer.StoreOf(stores.NewLockFree, stores.Options{})})
	if err != nil {
		panic(err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	podInformerFor(factory, newInformer)
	lister := factory.Core().V1().Pods().Lister() // typed, over the lab's informer

	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	pods, err := lister.Pods("default").List(labels.Everything())
	fmt.Println(len(pods), err)
	pod, err := lister.Pods("default").Get("web-2")
	fmt.Println(pod.Name, err)

	cancel()
	factory.Shutdown()
	// Output:
	// 2 <nil>
	// web-2 <nil>
}

package priorityq_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
	"github.com/queuelab/queuelab/stores"
)

// podMapper maps the pod kind without asking a server for discovery.
func podMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(corev1.SchemeGroupVersion.WithKind("Pod"), meta.RESTScopeNamespace)
	return m
}

// watchingController returns a controller named name, fed by src, whose
// reconciler reports every request it reconciles on the returned channel.
func watchingController(name string, src source.Source) (controller.Controller, <-chan string) {
	seen := make(chan string, 16)
	c, err := controller.NewUnmanaged(name, controller.Options{
		Reconciler: reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
			seen <- req.String()
			return reconcile.Result{}, nil
		}),
		SkipNameValidation: ptr.To(true),
	})
	if err != nil {
		panic(err)
	}
	if err := c.Watch(src); err != nil {
		panic(err)
	}
	return c, seen
}

// startController starts c until ctx is done; the returned channel closes
// when it has stopped.
func startController(ctx context.Context, c controller.Controller) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := c.Start(ctx); err != nil {
			panic(err)
		}
	}()
	return done
}

// collect receives n requests and returns them sorted.
func collect(seen <-chan string, n int) []string {
	var got []string
	for range n {
		got = append(got, <-seen)
	}
	slices.Sort(got)
	return got
}

// A controller-runtime cache builds every informer with
// cache.Options.NewInformer; a controller watching a kind through that
// cache then runs on the lab's informer. Here the API server is an
// in-process stand-in (informertest.Source over httptest).
func Example_informerNewInformer() {
	src := informertest.NewSource(informertest.Pod("default", "web-1", "web"), informertest.Pod("default", "web-2", "web"))
	srv := httptest.NewServer(src)
	defer srv.Close()

	newInformer, err := informer.NewInformerFunc(informer.Options{Store: informer.StoreOf(stores.NewLockFree, stores.Options{})})
	if err != nil {
		panic(err)
	}
	cache, err := crcache.New(&rest.Config{Host: srv.URL}, crcache.Options{
		Scheme:      scheme.Scheme,
		Mapper:      podMapper(),
		NewInformer: newInformer,
	})
	if err != nil {
		panic(err)
	}
	c, seen := watchingController("pods", source.Kind(cache, &corev1.Pod{}, &handler.TypedEnqueueRequestForObject[*corev1.Pod]{}))

	ctx, cancel := context.WithCancel(context.Background())
	cacheDone := make(chan struct{})
	go func() {
		defer close(cacheDone)
		_ = cache.Start(ctx)
	}()
	done := startController(ctx, c)
	fmt.Println(collect(seen, 2))
	src.Create(informertest.Pod("default", "web-3", "web"))
	fmt.Println(collect(seen, 1))

	var pods corev1.PodList
	fmt.Println(cache.List(ctx, &pods, client.InNamespace("default")), len(pods.Items))

	cancel()
	<-done
	<-cacheDone
	// Output:
	// [default/web-1 default/web-2]
	// [default/web-3]
	// <nil> 3
}

// source.Informer feeds a controller-runtime controller from any informer,
// the lab's included, built and run by the caller.
func Example_informerSource() {
	src := informertest.NewSource(informertest.Pod("default", "web-1", "web"))
	inf, err := informer.NewSharedIndexInformer(src.ListerWatcher(), &corev1.Pod{}, informer.Options{})
	if err != nil {
		panic(err)
	}
	c, seen := watchingController("pods-from-informer", &source.Informer{Informer: inf, Handler: &handler.EnqueueRequestForObject{}})

	ctx, cancel := context.WithCancel(context.Background())
	infDone := make(chan struct{})
	go func() {
		defer close(infDone)
		inf.RunWithContext(ctx)
	}()
	done := startController(ctx, c)
	fmt.Println(collect(seen, 1))
	src.Update(informertest.Pod("default", "web-1", "web-v2"))
	fmt.Println(collect(seen, 1))

	cancel()
	<-done
	<-infDone
	// Output:
	// [default/web-1]
	// [default/web-1]
}

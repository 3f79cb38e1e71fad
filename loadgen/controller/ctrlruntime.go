package controller

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// quietLogs silences controller-runtime's global logger once: its
// reconcile-error log lines would cost every stack the same and say
// nothing, and an unset logger prints a warning with a stack trace.
var quietLogs = sync.OnceFunc(func() { ctrllog.SetLogger(logr.Discard()) })

// ctrlRuntime is a controller built from controller-runtime's own
// packages: controller.NewTypedUnmanaged, a source.Informer with
// EnqueueRequestForObject (which lowers initial-list and resync events'
// priority on a priority queue) and the queue Options.NewQueue makes.
type ctrlRuntime struct {
	r     *run
	inf   Informer
	c     controller.TypedController[reconcile.Request]
	mu    sync.Mutex
	queue workqueue.TypedRateLimitingInterface[reconcile.Request]
}

func newCtrlRuntime(r *run, inf Informer, queue string) (*ctrlRuntime, error) {
	quietLogs()
	qe, err := lookupQueue[reconcile.Request](queue)
	if err != nil {
		return nil, err
	}
	cr := &ctrlRuntime{r: r, inf: inf}
	skip := true
	cr.c, err = controller.NewTypedUnmanaged(r.name, controller.TypedOptions[reconcile.Request]{
		Reconciler: reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
			return reconcile.Result{}, r.reconcile(req.Namespace, req.Name)
		}),
		MaxConcurrentReconciles: r.o.Workers,
		RateLimiter:             newLimiter[reconcile.Request](),
		NewQueue: func(name string, l workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			q := qe.New(name, l)
			cr.mu.Lock()
			cr.queue = q
			cr.mu.Unlock()
			return q
		},
		SkipNameValidation: &skip,
		CacheSyncTimeout:   time.Minute,
	})
	if err != nil {
		return nil, err
	}
	if err := cr.c.Watch(&source.Informer{Informer: inf, Handler: &handler.EnqueueRequestForObject{}}); err != nil {
		return nil, err
	}
	return cr, nil
}

// start runs the controller; controller-runtime registers the source's
// handler, then starts the workers.
func (cr *ctrlRuntime) start(ctx context.Context, wg *sync.WaitGroup) error {
	errc := make(chan error, 1)
	wg.Go(func() { errc <- cr.c.Start(ctx) })
	go func() {
		if err := <-errc; err != nil && ctx.Err() == nil {
			cr.r.procErrs.Add(1)
		}
	}()
	return nil
}

func (cr *ctrlRuntime) depth() int {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.queue == nil {
		return 0
	}
	return cr.queue.Len()
}

// newLimiter is the per-item exponential backoff both styles' defaults
// use, capped at a second so retries fit a short run; client-go's default
// adds a 10 qps bucket, which would measure the bucket, not the controller.
func newLimiter[T comparable]() workqueue.TypedRateLimiter[T] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, time.Second)
}

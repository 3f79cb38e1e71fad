package priorityq_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/queuelab/queuelab/queues/priorityq"
)

// request is one queued reconcile request with the priority its event asks for.
type request struct {
	name     string
	priority int
}

// priorityHandler enqueues a generic event's object at the priority named
// in its "priority" annotation, as a controller's own handler would with
// AddWithOpts; done counts the enqueued events.
func priorityHandler(done *sync.WaitGroup) handler.TypedEventHandler[*request, reconcile.Request] {
	return handler.TypedFuncs[*request, reconcile.Request]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[*request], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			defer done.Done()
			req := reconcile.Request{NamespacedName: types.NamespacedName{Name: e.Object.name}}
			if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
				pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(e.Object.priority)}, req)
				return
			}
			q.Add(req)
		},
	}
}

// runController builds a controller with the builder on a manager that
// never talks to an API server (nothing it starts needs one), fed by a
// channel source; it sends a blocker, then the requests while the blocker
// is being reconciled, then releases it, and returns the order in which
// the requests after the blocker were reconciled.
func runController(t testing.TB, name string, newQueue func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request], reqs []*request) []string {
	mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan event.TypedGenericEvent[*request])
	var enqueued sync.WaitGroup
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	finished := make(chan struct{})
	err = builder.TypedControllerManagedBy[reconcile.Request](mgr).
		Named(name).
		WatchesRawSource(source.TypedChannel(events, priorityHandler(&enqueued))).
		WithOptions(controller.TypedOptions[reconcile.Request]{NewQueue: newQueue, SkipNameValidation: ptr.To(true)}).
		Complete(reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
			if req.Name == "blocker" {
				<-release
				return reconcile.Result{}, nil
			}
			mu.Lock()
			defer mu.Unlock()
			if order = append(order, req.Name); len(order) == len(reqs) {
				close(finished)
			}
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- mgr.Start(ctx) }()
	enqueued.Add(1 + len(reqs))
	events <- event.TypedGenericEvent[*request]{Object: &request{name: "blocker"}}
	for _, r := range reqs {
		events <- event.TypedGenericEvent[*request]{Object: r}
	}
	enqueued.Wait()
	close(release)
	<-finished
	cancel()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	return order
}

// backlog is the issue's scenario: five priority-100 requests queued behind
// fifty priority -100 ones.
func backlog() []*request {
	var reqs []*request
	for i := range 50 {
		reqs = append(reqs, &request{name: fmt.Sprint("low-", i), priority: -100})
	}
	for i := range 5 {
		reqs = append(reqs, &request{name: fmt.Sprint("high-", i), priority: 100})
	}
	return reqs
}

// TestControllerKeepsPriorities: through controller.Options.NewQueue, every
// variant's priorities survive as controller-runtime's own queue's do: the
// five high-priority requests are reconciled first.
func TestControllerKeepsPriorities(t *testing.T) {
	queues := map[string]func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request]{
		"newqueue": priorityq.NewQueue[reconcile.Request],
	}
	for _, v := range withControllerRuntime[reconcile.Request]() {
		f, err := priorityq.QueueFunc(v.new, priorityq.Options[reconcile.Request]{})
		if err != nil {
			t.Fatal(err)
		}
		queues[v.name] = f
	}
	for name, newQueue := range queues {
		t.Run("queue="+name, func(t *testing.T) {
			order := runController(t, "keeps-priorities-"+name, newQueue, backlog())
			for i, got := range order[:5] {
				if got[:5] != "high-" {
					t.Fatalf("reconcile #%d was %s, want the five high-priority requests first; order: %v", i+1, got, order)
				}
			}
		})
	}
}

// A controller-runtime controller built with the builder, using the lab's
// priority queue through controller.Options.NewQueue and fed offline by a
// channel source: the five high-priority requests queued behind fifty
// low-priority ones while the worker was busy are reconciled first.
func Example_controllerRuntime() {
	order := runController(exampleT{}, "example", priorityq.NewQueue[reconcile.Request], backlog())
	fmt.Println(order[:6])
	// Output: [high-0 high-1 high-2 high-3 high-4 low-0]
}

// exampleT lets the example share runController; it only ever fails loudly.
type exampleT struct{ testing.TB }

func (exampleT) Fatal(args ...any) { panic(fmt.Sprint(args...)) }

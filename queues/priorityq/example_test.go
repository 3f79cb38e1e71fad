package priorityq_test

import (
	"fmt"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/queuelab/queuelab/queues/priorityq"
)

// A restarted controller's informer lists every object at low priority;
// a live change at the default priority goes ahead of that backlog, and
// an item added again keeps the highest priority it was given, once.
func Example() {
	q, err := priorityq.NewMutex(priorityq.Options[string]{})
	if err != nil {
		panic(err)
	}
	defer q.ShutDown()
	low := priorityq.AddOpts{Priority: ptr.To(-100)}
	q.AddWithOpts(low, "listed-a", "listed-b")
	q.Add("changed")
	q.AddWithOpts(low, "listed-a")                                     // already queued: one item
	q.AddWithOpts(priorityq.AddOpts{Priority: ptr.To(10)}, "listed-b") // raised
	for q.Len() > 0 {
		item, priority, _ := q.GetWithPriority()
		fmt.Println(item, priority)
		q.Done(item)
	}
	// Output:
	// listed-b 10
	// changed 0
	// listed-a -100
}

// QueueFunc plugs a variant other than Mutex, or other Options, into
// controller.Options.NewQueue; bad Options fail here, not when the
// controller starts.
func ExampleQueueFunc() {
	newQueue, err := priorityq.QueueFunc(priorityq.NewSharded[reconcile.Request],
		priorityq.Options[reconcile.Request]{Shards: 16, GetYield: priorityq.GetYieldOff})
	if err != nil {
		panic(err)
	}
	opts := controller.Options{NewQueue: newQueue}

	q := opts.NewQueue("pods", nil) // what the controller does when it starts
	defer q.ShutDown()
	_, keepsPriorities := q.(priorityq.PriorityQueue[reconcile.Request])
	fmt.Println("priority queue:", keepsPriorities)

	_, err = priorityq.QueueFunc(priorityq.NewMutex[reconcile.Request],
		priorityq.Options[reconcile.Request]{Shards: 16})
	fmt.Println(err)
	// Output:
	// priority queue: true
	// priorityq: NewMutex does not take Shards (got 16)
}

// With DrainOnShutdown, Get keeps handing out what was queued before
// ShutDown, as client-go's workqueue does; by default it would report
// shutdown at once.
func ExampleOptions_drainOnShutdown() {
	q, err := priorityq.NewMutex(priorityq.Options[string]{DrainOnShutdown: true})
	if err != nil {
		panic(err)
	}
	q.Add("a")
	q.AddWithOpts(priorityq.AddOpts{Priority: ptr.To(1)}, "b")
	q.ShutDown()
	for {
		item, shutdown := q.Get()
		if shutdown {
			break
		}
		fmt.Println(item)
		q.Done(item)
	}
	// Output:
	// b
	// a
}

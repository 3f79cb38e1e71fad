package workq_test

import (
	"fmt"
	"sync"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/queues/workq"
)

// A queue built here is a workqueue.TypedInterface: where a controller
// calls workqueue.NewTyped, it calls NewMutex (or NewSharded, NewRing) and
// keeps client-go's rules — an Add of a queued item is deduplicated, an
// item added while a worker holds it comes back after its Done.
func Example() {
	q, err := workq.NewMutex[string](workq.Options{})
	if err != nil {
		panic(err)
	}
	var queue workqueue.TypedInterface[string] = q
	defer queue.ShutDown()

	queue.Add("default/web")
	queue.Add("default/db")
	queue.Add("default/web") // already queued: one item
	fmt.Println("queued:", queue.Len())

	key, _ := queue.Get()
	queue.Add(key) // changed while processing: marked, not queued twice
	fmt.Println("processing", key, "queued:", queue.Len())
	queue.Done(key) // queued again, behind default/db

	for queue.Len() > 0 {
		key, _ := queue.Get()
		fmt.Println("processing", key)
		queue.Done(key)
	}
	// Output:
	// queued: 2
	// processing default/web queued: 1
	// processing default/db
	// processing default/web
}

// A controller that would call
//
//	workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
//
// builds the same queue on a queuelab base instead, keeping client-go's
// limiter and its workqueue.TypedRateLimitingInterface API.
func Example_controller() {
	base, err := workq.NewSharded[string](workq.Options{})
	if err != nil {
		panic(err)
	}
	queue, err := workq.NewRateLimiting(base, workqueue.DefaultTypedControllerRateLimiter[string](), workq.LayerOptions{})
	if err != nil {
		panic(err)
	}
	var q workqueue.TypedRateLimitingInterface[string] = queue

	// An informer's event handlers add keys; a failing sync is retried.
	attempts := map[string]int{}
	var mu sync.Mutex
	syncKey := func(key string) error {
		mu.Lock()
		defer mu.Unlock()
		attempts[key]++
		if key == "default/flaky" && attempts[key] < 3 {
			return fmt.Errorf("transient error")
		}
		return nil
	}
	q.Add("default/web")
	q.Add("default/flaky")
	q.Add("default/web") // deduplicated while queued

	synced := make(chan struct{})
	var workers sync.WaitGroup
	workers.Go(func() {
		for {
			key, shutdown := q.Get()
			if shutdown {
				return
			}
			if err := syncKey(key); err != nil {
				q.AddRateLimited(key) // retried after 5 ms, then 10 ms
			} else {
				q.Forget(key)
			}
			q.Done(key)
			mu.Lock()
			finished := attempts["default/web"] == 1 && attempts["default/flaky"] == 3
			mu.Unlock()
			if finished {
				close(synced)
			}
		}
	})
	<-synced
	q.ShutDownWithDrain() // let in-flight work finish, stop the retry timer
	workers.Wait()
	fmt.Println("web synced", attempts["default/web"], "time(s), flaky after", attempts["default/flaky"], "attempts")
	// Output: web synced 1 time(s), flaky after 3 attempts
}

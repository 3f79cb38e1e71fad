package workq_test

import (
	"fmt"
	"sync"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/queues/workq"
)

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

package priorityq

import (
	"fmt"

	"k8s.io/client-go/util/workqueue"
)

// NewQueue has exactly the signature of controller-runtime's
// controller.Options.NewQueue and builds a Mutex queue: metrics under the
// controller's name published as controller-runtime's own queues publish
// them (crmetrics.Provider), the rate limiter the controller passes (nil
// selects DefaultRateLimiter). It cannot fail, and because the queue is a
// PriorityQueue, controller-runtime uses it as one: priorities survive.
//
//	ctrl.NewControllerManagedBy(mgr).
//		WithOptions(controller.Options{NewQueue: priorityq.NewQueue[reconcile.Request]})
func NewQueue[T comparable](controllerName string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
	s, err := Options[T]{Name: controllerName, RateLimiter: rateLimiter}.resolve("NewQueue", false)
	if err != nil {
		panic(err) // unreachable: these options are always valid
	}
	return newMutex(s)
}

// QueueFunc returns a controller.Options.NewQueue that builds queues with
// newQ (NewMutex, NewSharded or NewLockFree) and o, named after the
// controller and, when o.RateLimiter is nil, limited by the limiter the
// controller passes. It checks o now, by building and shutting down one
// queue, so the function it returns cannot fail.
func QueueFunc[T comparable, Q PriorityQueue[T]](newQ func(Options[T]) (Q, error), o Options[T]) (func(controllerName string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T], error) {
	probe := o
	probe.Name = "" // no metrics series for the probe
	q, err := newQ(probe)
	if err != nil {
		return nil, err
	}
	q.ShutDown()
	return func(controllerName string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
		o := o
		o.Name = controllerName
		if o.RateLimiter == nil {
			o.RateLimiter = rateLimiter
		}
		q, err := newQ(o)
		if err != nil {
			panic(fmt.Sprintf("priorityq: options checked by QueueFunc failed: %v", err)) // unreachable
		}
		return q
	}, nil
}

package controller

import (
	"context"
	"sync"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// clientGo is client-go's examples/workqueue controller: handlers enqueue
// namespace/name keys, workers Get, reconcile, then Forget or
// AddRateLimited, and Done. Unlike the example it never drops a key after
// a number of retries: the books would (rightly) call that lost work.
type clientGo struct {
	r   *run
	inf Informer
	q   workqueue.TypedRateLimitingInterface[string]
}

func newClientGo(r *run, inf Informer, queue string) (*clientGo, error) {
	qe, err := lookupQueue[string](queue)
	if err != nil {
		return nil, err
	}
	// Unnamed, as the example's queue: client-go records no metrics for it.
	return &clientGo{r: r, inf: inf, q: qe.New("", newLimiter[string]())}, nil
}

func (c *clientGo) start(ctx context.Context, wg *sync.WaitGroup) error {
	enqueue := func(obj any) {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			c.r.procErrs.Add(1)
			return
		}
		c.q.Add(key)
	}
	_, err := c.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	})
	if err != nil {
		return err
	}
	for range c.r.o.Workers {
		wg.Go(func() {
			for c.next() {
			}
		})
	}
	wg.Go(func() {
		<-ctx.Done()
		c.q.ShutDown()
	})
	return nil
}

// next processes one key; false once the queue is shut down.
func (c *clientGo) next() bool {
	key, quit := c.q.Get()
	if quit {
		return false
	}
	defer c.q.Done(key)
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		c.r.procErrs.Add(1)
		c.q.Forget(key)
		return true
	}
	if err := c.r.reconcile(ns, name); err != nil {
		c.q.AddRateLimited(key)
		return true
	}
	c.q.Forget(key)
	return true
}

func (c *clientGo) depth() int { return c.q.Len() }

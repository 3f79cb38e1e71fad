package priorityq

import (
	"fmt"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/queuelab/queuelab/internal/shard"
	"github.com/queuelab/queuelab/queues/priorityq/crmetrics"
)

// PriorityQueue is controller-runtime's priority work queue interface, which
// every queue of this package implements: a controller built with one of
// them through controller.Options.NewQueue keeps its priorities.
type PriorityQueue[T comparable] = priorityqueue.PriorityQueue[T]

// AddOpts is controller-runtime's: Priority (nil is 0; higher goes first),
// After (a delay) and RateLimited (a delay from the queue's rate limiter).
type AddOpts = priorityqueue.AddOpts

// Options configures NewMutex, NewSharded and NewLockFree. The zero value is
// a queue without metrics and with controller-runtime's default limiter.
type Options[T comparable] struct {
	// Name names the queue's metrics; empty means no metrics, as in
	// controller-runtime.
	Name string
	// RateLimiter gives the delay of AddRateLimited and of
	// AddWithOpts(AddOpts{RateLimited: true}). Nil selects DefaultRateLimiter.
	RateLimiter workqueue.TypedRateLimiter[T]
	// MetricsProvider receives the queue's metrics when Name is set. Nil
	// selects crmetrics.Provider, which publishes the series
	// controller-runtime's queues publish into its metrics registry.
	MetricsProvider workqueue.MetricsProvider
	// Shards is the number of shards of a Sharded queue: 0 selects four per
	// GOMAXPROCS, others must lie in [1, 65536] and are rounded up to a power
	// of two. Other variants refuse a non-zero value.
	Shards int
	// DrainOnShutdown makes the queue drain as client-go's workqueue does:
	// after ShutDown, Get keeps handing out the items that are ready (and
	// those that a Done makes ready) and reports shutdown only when none is
	// left; ShutDownWithDrain waits until every ready item has been handed
	// out and Done. Set it for workers written against client-go's queue that
	// must finish the backlog before the process exits (a one-shot job, a
	// graceful hand-over that must not lose accepted work).
	//
	// The default is controller-runtime's contract: after ShutDown every Get
	// reports shutdown at once, whatever is queued, and ShutDownWithDrain
	// does not wait. controller-runtime stops a controller by shutting its
	// queue down and then waiting for its workers; a draining queue would
	// have a stopping or de-elected manager reconcile its whole backlog on a
	// cancelled context, after it lost its lease. Either way no Get stays
	// blocked after ShutDown.
	DrainOnShutdown bool
	// GetYield is whether Get lets the other runnable goroutines run before
	// it takes an item; the zero value, GetYieldDefault, is the lab's
	// current choice (see GetYield).
	GetYield GetYield
}

// GetYield is whether Get yields the processor (runtime.Gosched) before it
// takes an item.
//
// A Get that finds an item ready returns without blocking, so under a
// backlog a worker whose reconciles burn CPU loops Get, reconcile, Done
// without ever leaving its processor, and the Go scheduler takes it back
// only by preemption, after 10 ms or more. Sixteen such workers on two
// processors kept the informer that feeds the queue (reflector, DeltaFIFO
// consumer, handler) waiting for turns, so live changes reached the queue,
// and the listers, late (the controller-restart scenario: p99
// event→reconcile 0.2–0.6 s against 5–25 ms with controller-runtime's
// queue, whose every Get blocks on a channel fed by its own goroutine). One
// yield per Get makes each worker's turn one reconcile again, as there; it
// costs a scheduler round trip per Get, which a process whose workers do
// not starve anyone pays for nothing. The policy is therefore explicit; the
// default is to be chosen from a measurement of several controllers in one
// process.
type GetYield uint8

const (
	// GetYieldDefault selects the lab's current default, GetYieldOn.
	GetYieldDefault GetYield = iota
	// GetYieldOn yields once before every Get, before the pop, so that the
	// item taken is the best one ready after the others ran.
	GetYieldOn
	// GetYieldOff never yields: Get returns a ready item at once, as
	// client-go's queue and queuelab's workq do.
	GetYieldOff
)

// yields resolves y, refusing values outside the constants.
func (y GetYield) yields() (bool, error) {
	switch y {
	case GetYieldDefault, GetYieldOn:
		return true, nil
	case GetYieldOff:
		return false, nil
	}
	return false, fmt.Errorf("priorityq: unknown GetYield %d", y)
}

// DefaultRateLimiter is the limiter controller-runtime gives a controller
// whose queue is its priority queue: per item, 5 ms doubling up to 1000 s.
// (controller.Options.NewQueue receives that one too, unless
// UsePriorityQueue is set to false, which selects client-go's default
// limiter instead.)
func DefaultRateLimiter[T comparable]() workqueue.TypedRateLimiter[T] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second)
}

// settings are Options checked and defaulted.
type settings[T comparable] struct {
	limiter workqueue.TypedRateLimiter[T]
	metrics *metrics
	shards  int
	drain   bool // Options.DrainOnShutdown
	yield   bool // Options.GetYield resolved
}

// resolve checks o for the named constructor; only NewSharded takes Shards.
func (o Options[T]) resolve(constructor string, sharded bool) (settings[T], error) {
	s := settings[T]{limiter: o.RateLimiter, shards: 1, drain: o.DrainOnShutdown}
	if o.Shards != 0 && !sharded {
		return s, fmt.Errorf("priorityq: %s does not take Shards (got %d)", constructor, o.Shards)
	}
	if sharded {
		n, err := shard.Validate(o.Shards)
		if err != nil {
			return s, fmt.Errorf("priorityq: %s: %w", constructor, err)
		}
		s.shards = n
	}
	y, err := o.GetYield.yields()
	if err != nil {
		return s, err
	}
	s.yield = y
	if s.limiter == nil {
		s.limiter = DefaultRateLimiter[T]()
	}
	p := o.MetricsProvider
	if p == nil {
		p = crmetrics.Provider{}
	}
	s.metrics = newMetrics(p, o.Name)
	return s, nil
}

// delay is how long an item added with o waits, as controller-runtime
// computes it: the rate limiter's delay when it asks for one and it is
// shorter than After (or After is zero); zero or less means ready now.
func (s *settings[T]) delay(o AddOpts, item T) time.Duration {
	after := o.After
	if o.RateLimited {
		if rl := s.limiter.When(item); after == 0 || rl < after {
			after = rl
		}
	}
	return after
}

// priority is o's priority, 0 when unset.
func priority(o AddOpts) int { return ptr.Deref(o.Priority, 0) }

package priorityq

import (
	"fmt"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/queuelab/queuelab/internal/shard"
	"github.com/queuelab/queuelab/queues/crmetrics"
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

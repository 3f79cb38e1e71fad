package workq

import (
	"errors"

	"k8s.io/client-go/util/workqueue"
)

var _ workqueue.TypedRateLimitingInterface[string] = (*RateLimiting[string])(nil)

// RateLimiting adds client-go's rate-limited retries to any
// workqueue.TypedInterface, through a Delaying layer: AddRateLimited(item)
// is AddAfter(item, limiter.When(item)), and Forget and NumRequeues are the
// limiter's. It takes client-go's workqueue.TypedRateLimiter, so controllers
// keep the limiters they have (DefaultTypedControllerRateLimiter, exponential,
// fast-slow, max-of, bucket, with-max-wait, or their own).
type RateLimiting[T comparable] struct {
	*Delaying[T]
	limiter workqueue.TypedRateLimiter[T]
}

// NewRateLimiting wraps q with AddAfter and AddRateLimited. Where a
// controller calls workqueue.NewTypedRateLimitingQueue(limiter), it can call
// NewRateLimiting(q, limiter, LayerOptions{}) with any queue q of this
// package.
func NewRateLimiting[T comparable](q workqueue.TypedInterface[T], limiter workqueue.TypedRateLimiter[T], opts LayerOptions) (*RateLimiting[T], error) {
	if limiter == nil {
		return nil, errors.New("workq: NewRateLimiting: nil rate limiter")
	}
	d, err := NewDelaying(q, opts)
	if err != nil {
		return nil, err
	}
	return &RateLimiting[T]{Delaying: d, limiter: limiter}, nil
}

// AddRateLimited adds item after the delay the rate limiter chooses for it.
func (q *RateLimiting[T]) AddRateLimited(item T) {
	q.AddAfter(item, q.limiter.When(item))
}

// Forget tells the rate limiter to stop tracking item's retries; the caller
// still calls Done.
func (q *RateLimiting[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns how many times the rate limiter saw item retried.
func (q *RateLimiting[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

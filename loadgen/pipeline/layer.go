package pipeline

import (
	"time"

	"k8s.io/client-go/util/workqueue"
)

// Layer puts the delaying and rate-limiting layers a controller needs
// (AddRateLimited, Forget) over a base queue from the workq registry.
type Layer func(base workqueue.TypedInterface[string], limiter workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string]

// ClientGoLayer stacks client-go's own delaying and rate-limiting queues
// over base, which client-go allows for any TypedInterface.
func ClientGoLayer(base workqueue.TypedInterface[string], limiter workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
	dq := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Queue: base})
	return workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{DelayingQueue: dq})
}

// DefaultLayer is the layer a run uses unless Options.Layer says otherwise:
// client-go's layers over client-go's queue, and — for now — over ours too.
//
// Merge note: when queues/workq's layers land, non-baseline stacks should
// use them (workq.NewRateLimiting(base, limiter)); that is the one line to
// change, here.
func DefaultLayer(baseline bool) Layer {
	return ClientGoLayer
}

// newLimiter is the per-item exponential backoff of client-go's default
// controller limiter, without its 10 qps token bucket (which would measure
// the bucket, not the queue); the cap keeps retries within a short run.
func newLimiter() workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second)
}

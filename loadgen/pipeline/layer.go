package pipeline

import (
	"fmt"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/queues/workq"
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

// QueuelabLayer stacks queues/workq's delaying and rate-limiting layer
// over base.
func QueuelabLayer(base workqueue.TypedInterface[string], limiter workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
	q, err := workq.NewRateLimiting(base, limiter, workq.LayerOptions{})
	if err != nil {
		// Only a nil base or limiter fails, and both come from the
		// registry and newLimiter: a programming error, not input.
		panic(fmt.Sprintf("pipeline: %v", err))
	}
	return q
}

// DefaultLayer is the layer a run uses unless Options.Layer says otherwise:
// client-go's layers over client-go's queue, queuelab's over ours, so each
// base runs with the layer it ships with.
func DefaultLayer(clientGoBase bool) Layer {
	if clientGoBase {
		return ClientGoLayer
	}
	return QueuelabLayer
}

// newLimiter is the per-item exponential backoff of client-go's default
// controller limiter, without its 10 qps token bucket (which would measure
// the bucket, not the queue); the cap keeps retries within a short run.
func newLimiter() workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second)
}

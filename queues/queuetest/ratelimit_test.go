package queuetest_test

import (
	"testing"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/queues/queuetest"
	"github.com/queuelab/queuelab/queues/workq"
)

// TestRateLimitingQueue runs the rate-limiting suite over client-go's
// rate-limiting queue (the reference) and over this package's RateLimiting
// layer on every registered base queue.
func TestRateLimitingQueue(t *testing.T) {
	t.Run("layer=clientgo/base=clientgo", func(t *testing.T) {
		queuetest.RunRateLimitingQueue(t, func(_ *testing.T, clk clock.WithTicker, l workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(l, workqueue.TypedRateLimitingQueueConfig[string]{Clock: clk})
		})
	})
	for _, e := range workq.Impls[string]() {
		t.Run("layer=queuelab/base="+e.Name, func(t *testing.T) {
			queuetest.RunRateLimitingQueue(t, func(t *testing.T, clk clock.WithTicker, l workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
				q, err := workq.NewRateLimiting(e.New(), l, workq.WithClock(clk))
				if err != nil {
					t.Fatal(err)
				}
				return q
			}, baseOptions(e)...)
		})
	}
}

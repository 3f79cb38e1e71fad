package queuetest_test

import (
	"testing"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/queues/queuetest"
	"github.com/queuelab/queuelab/queues/registry"
	"github.com/queuelab/queuelab/queues/workq"
)

// baseOptions are the suite options for a layer over the base entry e.
func baseOptions(e workq.Entry[string]) []queuetest.Option {
	opts := []queuetest.Option{queuetest.WithOrder(e.Guarantees.Order)}
	if e.Name == registry.Baseline {
		opts = append(opts, queuetest.WithClientGoBase())
	}
	return opts
}

func newDelaying(t *testing.T, base workqueue.TypedInterface[string], clk clock.WithTicker) workqueue.TypedDelayingInterface[string] {
	t.Helper()
	q, err := workq.NewDelaying(base, workq.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestDelayingQueue runs the delaying and workqueue suites over client-go's
// delaying queue (the reference) and over this package's Delaying layer on
// every registered base queue.
func TestDelayingQueue(t *testing.T) {
	t.Run("layer=clientgo/base=clientgo", func(t *testing.T) {
		newQ := func(_ *testing.T, clk clock.WithTicker) workqueue.TypedDelayingInterface[string] {
			return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: clk})
		}
		queuetest.RunDelayingQueue(t, newQ)
		queuetest.RunWorkQueue(t, func(t *testing.T) workqueue.TypedInterface[string] { return newQ(t, clock.RealClock{}) },
			queuetest.WithClientGoBase())
	})
	for _, e := range workq.Impls[string]() {
		t.Run("layer=queuelab/base="+e.Name, func(t *testing.T) {
			newQ := func(t *testing.T, clk clock.WithTicker) workqueue.TypedDelayingInterface[string] {
				return newDelaying(t, e.New(), clk)
			}
			queuetest.RunDelayingQueue(t, newQ, baseOptions(e)...)
			queuetest.RunWorkQueue(t, func(t *testing.T) workqueue.TypedInterface[string] { return newQ(t, clock.RealClock{}) },
				baseOptions(e)...)
		})
	}
}

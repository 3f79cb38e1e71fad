package informer

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/informer/internal/fanout"
)

// TestCollectorHandsOnChunksMidPop: a pop of many notifications reaches
// the registrations whole, while the collector's buffer never grows past
// twice chunkEvents: it hands a full buffer on mid-pop instead of growing
// it to the pop (the old collector held 5,127 events here).
func TestCollectorHandsOnChunksMidPop(t *testing.T) {
	const n = 5*chunkEvents + 7
	synctest.Test(t, func(t *testing.T) {
		var delivered atomic.Int64
		f := fanout.New(clock.RealClock{}, fanout.Crash)
		_, err := f.Add(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { delivered.Add(1) }},
			"counter", klog.Background(), 0, 0, nil)
		require.NoError(t, err)
		f.Start()
		defer f.Stop()
		c := collector{fan: f, mutation: cache.NewCacheMutationDetector("test")}
		largest := 0
		for i := range n {
			c.OnAdd(i, true)
			largest = max(largest, cap(c.events))
		}
		synctest.Wait()
		assert.Positive(t, delivered.Load(), "delivered before the pop ended")
		c.flush()
		synctest.Wait()
		assert.Equal(t, int64(n), delivered.Load())
		assert.LessOrEqual(t, largest, 2*chunkEvents)
	})
}

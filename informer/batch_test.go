package informer

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer/informertest"
)

// countingFIFO counts how the consumer pops the FIFO.
type countingFIFO struct {
	cache.Queue
	batch         cache.QueueWithBatch
	pops, batches atomic.Int32
}

func (q *countingFIFO) Pop(process cache.PopProcessFunc) (any, error) {
	q.pops.Add(1)
	return q.Queue.Pop(process)
}

func (q *countingFIFO) PopBatch(batch cache.ProcessBatchFunc, single cache.PopProcessFunc) error {
	q.batches.Add(1)
	return q.batch.PopBatch(batch, single)
}

// TestBatchingIgnoresFeatureGate: the consumer pops batches whether
// client-go's InOrderInformersBatchProcess gate is on or off; the gate
// changes client-go's informer, not the drop-in.
func TestBatchingIgnoresFeatureGate(t *testing.T) {
	for _, gate := range []bool{true, false} {
		t.Run(map[bool]string{true: "gate-on", false: "gate-off"}[gate], func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.InOrderInformersBatchProcess, gate)
			synctest.Test(t, func(t *testing.T) {
				src := informertest.NewSource(informertest.Pod("ns", "a", "x"))
				var fifo *countingFIFO
				counting := FIFO{New: func(cfg FIFOConfig) (cache.Queue, error) {
					q, err := FIFO{}.orDefault().New(cfg)
					fifo = &countingFIFO{Queue: q, batch: q.(cache.QueueWithBatch)}
					return fifo, err
				}}
				inf, err := NewSharedIndexInformer(src.ListerWatcher(), &corev1.Pod{}, Options{FIFO: counting})
				require.NoError(t, err)
				got := make(chan string, 2)
				_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { got <- obj.(*corev1.Pod).Name }})
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					inf.RunWithContext(ctx)
				}()
				synctest.Wait()
				src.Create(informertest.Pod("ns", "b", "x"))
				synctest.Wait()
				assert.Equal(t, "a", <-got)
				assert.Equal(t, "b", <-got)
				cancel()
				<-done
				assert.Zero(t, fifo.pops.Load(), "Pop called")
				assert.Positive(t, fifo.batches.Load(), "PopBatch calls")
			})
		})
	}
}

package informer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

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

// run starts inf and returns what stops it and waits for it to return.
func run(inf *Informer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.RunWithContext(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
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
				stop := run(inf)
				synctest.Wait()
				src.Create(informertest.Pod("ns", "b", "x"))
				synctest.Wait()
				assert.Equal(t, "a", <-got)
				assert.Equal(t, "b", <-got)
				stop()
				assert.Zero(t, fifo.pops.Load(), "Pop called")
				assert.Positive(t, fifo.batches.Load(), "PopBatch calls")
			})
		})
	}
}

// TestLargeListReachesHandlersInChunks: an initial list far larger than
// the collector's chunk reaches a handler whole, every
// add marked as in the initial list, while the collector's buffer stays
// within what fanout.Recycle reuses instead of growing to the list.
func TestLargeListReachesHandlersInChunks(t *testing.T) {
	const n = 5*chunkEvents + 7
	pods := make([]*corev1.Pod, n)
	want := make([]string, n)
	for i := range pods {
		want[i] = fmt.Sprintf("p%05d", i)
		pods[i] = informertest.Pod("ns", want[i], "x")
	}
	synctest.Test(t, func(t *testing.T) {
		src := informertest.NewSource(pods...)
		inf, err := NewSharedIndexInformer(src.ListerWatcher(), &corev1.Pod{}, Options{})
		require.NoError(t, err)
		var names []string
		initial := 0
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{AddFunc: func(obj any, isInInitialList bool) {
			names = append(names, obj.(*corev1.Pod).Name)
			if isInInitialList {
				initial++
			}
		}})
		require.NoError(t, err)
		stop := run(inf)
		defer stop()
		synctest.Wait()
		require.True(t, reg.HasSynced())
		slices.Sort(names)
		assert.Equal(t, want, names)
		assert.Equal(t, n, initial)
		assert.LessOrEqual(t, cap(inf.collect.events), 2*chunkEvents)
	})
}

// TestLargeRelistReachesHandlersInChunks: a relist far larger than the
// collector's chunk, into a store that holds the previous list, reaches a
// handler as client-go's informer delivers it: a tombstone for each pod
// deleted while the watch was down and an update for every pod listed,
// changed or not (a registration without a resync period is never told
// it is not syncing, so it hears unchanged objects too).
func TestLargeRelistReachesHandlersInChunks(t *testing.T) {
	const n = 3*chunkEvents + 5
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = informertest.Pod("ns", fmt.Sprintf("p%05d", i), "x")
	}
	synctest.Test(t, func(t *testing.T) {
		src := informertest.NewSource(pods...)
		inf, err := NewSharedIndexInformer(src.ListerWatcher(), &corev1.Pod{}, Options{})
		require.NoError(t, err)
		var updated, deleted []string
		_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, obj any) { updated = append(updated, obj.(*corev1.Pod).Name) },
			DeleteFunc: func(obj any) {
				tomb, ok := obj.(cache.DeletedFinalStateUnknown)
				require.True(t, ok, "a relist deletion is a tombstone")
				deleted = append(deleted, tomb.Obj.(*corev1.Pod).Name)
			},
		})
		require.NoError(t, err)
		stop := run(inf)
		defer stop()
		synctest.Wait()
		require.True(t, inf.HasSynced())

		var wantUpdated, wantDeleted []string
		for i, p := range pods {
			switch i % 3 {
			case 0:
				src.Forget(p.Namespace, p.Name)
				wantDeleted = append(wantDeleted, p.Name)
				continue
			case 1:
				src.Put(p)
			}
			wantUpdated = append(wantUpdated, p.Name)
		}
		src.Expire()
		time.Sleep(time.Minute) // past the Reflector's backoff, in the bubble's time
		synctest.Wait()

		slices.Sort(deleted) // in the store's key order, as client-go's
		assert.Equal(t, wantDeleted, deleted)
		slices.Sort(updated)
		assert.Equal(t, wantUpdated, updated)
		assert.ElementsMatch(t, slices.Collect(maps.Keys(src.Pods())), inf.GetStore().ListKeys())
		assert.LessOrEqual(t, cap(inf.collect.events), 2*chunkEvents)
	})
}

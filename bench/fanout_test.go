package bench

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/cacheline"
	"github.com/queuelab/queuelab/internal/lab/registry"
)

// fanoutImpls are the informers BenchmarkInformerFanout compares: client-go's
// (a processorListener per handler: two goroutines, two channel hand-offs
// and a boxed notification per event) and the lab's informer over the same
// RealFIFO and client-go's store, so the difference is the fan-out.
var fanoutImpls = []string{registry.Baseline, "clientgo+realfifo"}

// fanoutBatch is how many watch events one benchmark op sends before it
// waits for every handler to have been called for each of them.
const fanoutBatch = 1024

// BenchmarkInformerFanout measures delivering watch events to N handlers:
// each op is fanoutBatch updates sent through a fake watch, timed until
// every handler has seen all of them. ns/op and allocs/op are per batch;
// notifications/s counts handler calls.
func BenchmarkInformerFanout(b *testing.B) {
	impls := registry.Informers()
	for _, handlers := range []int{1, 4, 16} {
		b.Run("handlers="+strconv.Itoa(handlers), func(b *testing.B) {
			for _, name := range fanoutImpls {
				e, err := impls.Lookup(name)
				if err != nil {
					b.Fatal(err)
				}
				b.Run("impl="+name, func(b *testing.B) { benchFanout(b, e.New, handlers) })
			}
		})
	}
}

// countingHandler counts its calls and reports each completed batch.
type countingHandler struct {
	n     atomic.Int64
	batch *sync.WaitGroup
	_     [cacheline.Size]byte // each handler's counter on lines of its own
}

func (h *countingHandler) note() {
	if h.n.Add(1)%fanoutBatch == 0 {
		h.batch.Done()
	}
}

func (h *countingHandler) OnAdd(any, bool)   { h.note() }
func (h *countingHandler) OnUpdate(_, _ any) { h.note() }
func (h *countingHandler) OnDelete(any)      { h.note() }

// fanoutObjects are the pods the benchmark's watch cycles through: 256
// keys, 16 versions each, so consecutive events of one key differ.
var fanoutObjects = sync.OnceValue(func() []*corev1.Pod {
	objs := make([]*corev1.Pod, 4096)
	for i := range objs {
		objs[i] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: "pod-" + strconv.Itoa(i%256), ResourceVersion: strconv.Itoa(i + 2),
		}}
	}
	return objs
})

func benchFanout(b *testing.B, newInformer func(cache.ListerWatcher, runtime.Object, cache.SharedIndexInformerOptions) cache.SharedIndexInformer, handlers int) {
	w := watch.NewFakeWithChanSize(fanoutBatch, false)
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}, fanoutClient{})
	inf := newInformer(lw, &corev1.Pod{}, cache.SharedIndexInformerOptions{})
	var batch sync.WaitGroup
	for range handlers {
		if _, err := inf.AddEventHandler(&countingHandler{batch: &batch}); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.RunWithContext(ctx)
	}()
	defer func() {
		cancel()
		<-done
		w.Stop()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		b.Fatal("informer did not sync")
	}

	objs := fanoutObjects()
	sent := 0
	b.ReportAllocs()
	for b.Loop() {
		batch.Add(handlers)
		for range fanoutBatch {
			w.Modify(objs[sent%len(objs)])
			sent++
		}
		batch.Wait()
	}
	b.ReportMetric(float64(sent*handlers)/b.Elapsed().Seconds(), "notifications/s")
}

// fanoutClient makes a Reflector list then watch instead of waiting for a
// watch-list bookmark the fake watch never sends.
type fanoutClient struct{}

func (fanoutClient) IsWatchListSemanticsUnSupported() bool { return true }

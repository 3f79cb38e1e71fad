package informer_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
	"k8s.io/utils/ptr"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
)

// clientGoAndDropIn are the two informers a setting is compared on:
// client-go's and the drop-in with the given FIFO.
func clientGoAndDropIn(fifo informer.FIFO) map[string]func(cache.ListerWatcher, cache.SharedIndexInformerOptions) (cache.SharedIndexInformer, error) {
	return map[string]func(cache.ListerWatcher, cache.SharedIndexInformerOptions) (cache.SharedIndexInformer, error){
		"clientgo": func(lw cache.ListerWatcher, o cache.SharedIndexInformerOptions) (cache.SharedIndexInformer, error) {
			return cache.NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, o), nil
		},
		"drop-in": func(lw cache.ListerWatcher, o cache.SharedIndexInformerOptions) (cache.SharedIndexInformer, error) {
			return informer.NewSharedIndexInformer(lw, &corev1.Pod{}, informer.Options{SharedIndexInformerOptions: o, FIFO: fifo})
		},
	}
}

// TestResyncWarnings: a handler resync period that the informer drops (no
// check period), raises to the minimum, or raises to the check period is
// logged with client-go's warnings, line for line, and a negative one is
// taken as client-go takes it.
func TestResyncWarnings(t *testing.T) {
	logs := make(map[string]string)
	for name, newInformer := range clientGoAndDropIn(informer.FIFO{}) {
		var buf bytes.Buffer
		logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&buf), textlogger.WithHeader(false)))
		h := cache.ResourceEventHandlerFuncs{}
		add := func(inf cache.SharedIndexInformer, period time.Duration) {
			_, err := inf.AddEventHandlerWithOptions(h, cache.HandlerOptions{Logger: &logger, ResyncPeriod: ptr.To(period)})
			require.NoError(t, err, "%s: period %v", name, period)
		}
		noResync, err := newInformer(informertest.NewSource().ListerWatcher(), cache.SharedIndexInformerOptions{})
		require.NoError(t, err)
		add(noResync, 5*time.Second)
		add(noResync, 100*time.Millisecond)
		hourly, err := newInformer(informertest.NewSource().ListerWatcher(), cache.SharedIndexInformerOptions{ResyncPeriod: time.Hour})
		require.NoError(t, err)
		add(hourly, -time.Second)
		logs[name] = buf.String()
	}
	assert.Contains(t, logs["clientgo"], `"Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing" desired="5s"`)
	assert.Equal(t, logs["clientgo"], logs["drop-in"])
}

// gauges is an InformerMetricsProvider recording the last value of every
// gauge it made, by metric and informer name.
type gauges struct {
	mu   sync.Mutex
	last map[string]float64
}

type gauge struct {
	g   *gauges
	key string
}

func (g gauge) Set(v float64) {
	g.g.mu.Lock()
	defer g.g.mu.Unlock()
	g.g.last[g.key] = v
}

func (g gauge) Observe(float64) {}

func (g *gauges) get(key string) (float64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	v, ok := g.last[key]
	return v, ok
}

func (g *gauges) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return gauge{g, "queued " + id.Name()}
}

func (g *gauges) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	return gauge{g, "latency " + id.Name()}
}

func (g *gauges) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return gauge{g, "store-rv " + id.Name()}
}

func identifier(t *testing.T, name string) cache.InformerNameAndResource {
	n, err := cache.NewInformerName("queuelab-informer-test-" + name)
	require.NoError(t, err)
	t.Cleanup(n.Release)
	return n.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
}

// TestMetricsIdentifier: a reserved Identifier with a FIFO that publishes
// no metrics is refused at construction; with client-go's RealFIFO the
// drop-in publishes the FIFO's and the store's metrics as client-go's
// informer does.
func TestMetricsIdentifier(t *testing.T) {
	opts := informer.Options{SharedIndexInformerOptions: cache.SharedIndexInformerOptions{Identifier: identifier(t, "refused")}}
	_, err := informer.NewSharedIndexInformer(informertest.NewSource().ListerWatcher(), &corev1.Pod{}, opts)
	assert.ErrorContains(t, err, "the FIFO publishes no metrics")
	_, err = informer.NewInformerFunc(opts)
	assert.ErrorContains(t, err, "the FIFO publishes no metrics", "NewInformerFunc checks the same")
	opts.Identifier = cache.InformerNameAndResource{}
	opts.InformerMetricsProvider = &gauges{}
	_, err = informer.NewSharedIndexInformer(informertest.NewSource().ListerWatcher(), &corev1.Pod{}, opts)
	assert.NoError(t, err, "a provider without a reserved Identifier publishes nothing, with client-go too")

	for name, newInformer := range clientGoAndDropIn(informer.RealFIFO()) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := informertest.NewSource(informertest.Pod("ns", "a", "x"))
				g := &gauges{last: make(map[string]float64)}
				id := identifier(t, name)
				inf, err := newInformer(src.ListerWatcher(), cache.SharedIndexInformerOptions{Identifier: id, InformerMetricsProvider: g})
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					inf.RunWithContext(klog.NewContext(ctx, klog.Background()))
				}()
				synctest.Wait()
				src.Create(informertest.Pod("ns", "b", "x"))
				synctest.Wait()
				rv, ok := g.get("store-rv " + id.Name())
				assert.True(t, ok, "store resource version published")
				assert.Equal(t, float64(2), rv, "the store's resource version")
				queued, ok := g.get("queued " + id.Name())
				assert.True(t, ok, "FIFO queue length published")
				assert.Zero(t, queued)
				cancel()
				<-done
			})
		})
	}
}

package bench

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"

	labregistry "github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/workq"
	"github.com/queuelab/queuelab/queues/workq/workqtest"
)

// workQueueEntry is one of the lab's work queues.
type workQueueEntry = labregistry.Entry[func() workqueue.TypedInterface[string], workqtest.Guarantees]

// workKeys returns n distinct "namespace/name" keys, the shape controllers
// put in their queues; keyIndex recovers i from the i-th.
func workKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "ns-" + strconv.Itoa(i%16) + "/obj-" + strconv.Itoa(i)
	}
	return keys
}

// keyIndex parses the index out of a workKeys key without a map lookup,
// which at 100 000 keys would cost a cache miss per item in the harness.
func keyIndex(key string) int {
	i, err := strconv.Atoi(key[strings.LastIndexByte(key, '-')+1:])
	if err != nil {
		panic(err) // only workKeys keys are ever queued
	}
	return i
}

// BenchmarkWorkQueue measures every registered workqueue implementation,
// client-go's included: the single-goroutine round trip, the dedup path, and
// producer/consumer pipelines reporting items/s. The round trip and the
// pipelines of 8 producers and 8 consumers also run in the configuration
// client-go controllers run (queueConfig): metrics on, items parked behind
// AddAfter.
func BenchmarkWorkQueue(b *testing.B) {
	wqs := labregistry.WorkQueues[string]()
	benchRoundTrips(b, wqs, newWorkQueue)
	const keys = 1024
	eachImpl(b, wqs, fmt.Sprintf("op=add-dup/keys=%d/%s", keys, plain), func(b *testing.B, e workQueueEntry) {
		benchAddDup(b, newWorkQueue(b, e, plain), workKeys(keys))
	})
	for _, workers := range []int{2, 8, 64} {
		configs := []queueConfig{plain}
		if workers == 8 {
			configs = everyConfig // the contention headline's, and bench-scaling's
		}
		for _, k := range []int{1024, 100_000} {
			ks := workKeys(k)
			for _, c := range configs {
				name := fmt.Sprintf("op=pipeline/producers=%d/consumers=%d/keys=%d/%s", workers, workers, k, c)
				eachImpl(b, wqs, name, func(b *testing.B, e workQueueEntry) {
					benchPipeline(b, newWorkQueue(b, e, c), ks, workers, workers, nil)
				})
			}
		}
	}
}

// queueConfig is how a benchmark's queue is configured beyond its
// implementation, in the two respects that change a controller's queue
// most: whether it is named and so publishes metrics on every operation,
// and how many items sit parked behind AddAfter (an hour ahead, on the
// real clock, so none fires during the run), as retries and RequeueAfter
// keep some parked in nearly every controller.
type queueConfig struct {
	metrics bool
	delayed int
}

// String is the configuration's part of a benchmark name.
func (c queueConfig) String() string {
	m := "off"
	if c.metrics {
		m = "on"
	}
	return fmt.Sprintf("metrics=%s/delayed=%d", m, c.delayed)
}

// plain is an unnamed queue with nothing parked: every benchmark runs it;
// everyConfig is the cross-product, run only where a result is quoted for
// the configuration controllers run, to keep the matrix small.
var (
	plain       = queueConfig{}
	everyConfig = []queueConfig{plain, {metrics: true}, {delayed: 1000}, {metrics: true, delayed: 1000}}
)

// metricsName names every metrics=on queue. Sub-benchmarks run one at a
// time and each shuts its queue down, so no two live queues share it.
const metricsName = "bench"

// park adds c.delayed items, distinct from every workKeys key, an hour
// ahead.
func (c queueConfig) park(q workqueue.TypedDelayingInterface[string]) {
	for i := range c.delayed {
		q.AddAfter("parked-"+strconv.Itoa(i), time.Hour)
	}
}

// workQueueWithOptions builds each registered work queue from options, so
// it can be named and publish metrics; the registry's constructors take
// none. Keyed by registry name: an implementation missing here fails
// newWorkQueue rather than being measured without metrics.
var workQueueWithOptions = map[string]func(workq.Options) (workqueue.TypedInterface[string], error){
	labregistry.Baseline: func(o workq.Options) (workqueue.TypedInterface[string], error) {
		return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: o.Name, MetricsProvider: o.MetricsProvider}), nil
	},
	"mutex":   widen(workq.NewMutex[string]),
	"sharded": widen(workq.NewSharded[string]),
	"ring":    widen(workq.NewRing[string]),
}

// widen turns a constructor's concrete result into the interface.
func widen[Q workqueue.TypedInterface[string]](newQ func(workq.Options) (Q, error)) func(workq.Options) (workqueue.TypedInterface[string], error) {
	return func(o workq.Options) (workqueue.TypedInterface[string], error) {
		q, err := newQ(o)
		if err != nil {
			return nil, err
		}
		return q, nil
	}
}

// newWorkQueue builds e's queue in configuration c. With metrics, the queue
// is named and publishes through client-go's MetricsProvider into a
// Prometheus registry of this benchmark's own, which is checked at the end
// to have counted adds. With parked items, it runs under the rate-limiting
// layer a controller puts over it (client-go's own for client-go's queue,
// the lab's for the others), which holds them. The plain configuration is
// the registry's constructor as is.
func newWorkQueue(b *testing.B, e workQueueEntry, c queueConfig) workqueue.TypedInterface[string] {
	if c == plain {
		return e.New()
	}
	var o workq.Options
	var reg *prometheus.Registry
	if c.metrics {
		reg = prometheus.NewRegistry()
		o.MetricsProvider, o.Name = newPromMetrics(reg), metricsName
		b.Cleanup(func() { requireAdds(b, reg, 0) })
	}
	newQ, ok := workQueueWithOptions[e.Name]
	if !ok {
		b.Fatalf("impl=%s: no constructor with options in workQueueWithOptions", e.Name)
	}
	if c.delayed == 0 {
		q, err := newQ(o)
		if err != nil {
			b.Fatal(err)
		}
		return q
	}
	limiter := workqueue.DefaultTypedControllerRateLimiter[string]()
	var q workqueue.TypedRateLimitingInterface[string]
	if e.Name == labregistry.Baseline {
		q = workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: o.Name, MetricsProvider: o.MetricsProvider})
	} else {
		base, err := newQ(o)
		if err != nil {
			b.Fatal(err)
		}
		q, err = workq.NewRateLimiting(base, limiter, workq.LayerOptions{MetricsProvider: o.MetricsProvider, Name: o.Name})
		if err != nil {
			b.Fatal(err)
		}
	}
	c.park(q)
	return q
}

// requireAdds fails b unless the workqueue_adds_total series of
// metricsName in g has grown past before: a metrics=on benchmark whose
// queue published nothing would measure metrics=off under the wrong name.
func requireAdds(b *testing.B, g prometheus.Gatherer, before float64) {
	if after := addsTotal(b, g); after <= before {
		b.Errorf("metrics=on: workqueue_adds_total{name=%q} is %v, was %v: the queue published no adds", metricsName, after, before)
	}
}

// addsTotal reads the workqueue_adds_total series of metricsName in g (0
// when absent).
func addsTotal(b *testing.B, g prometheus.Gatherer) float64 {
	families, err := g.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "workqueue_adds_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == metricsName {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// promMetrics is a client-go workqueue.MetricsProvider over a Prometheus
// registry, with the series k8s.io/component-base publishes for
// kube-controller-manager's queues (workqueue_depth, workqueue_adds_total,
// ..., labelled by queue name and with its buckets): what a client-go
// controller that publishes its queue's metrics runs on every operation.
type promMetrics struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, workDuration      *prometheus.HistogramVec
}

var _ workqueue.MetricsProvider = (*promMetrics)(nil)

// newPromMetrics registers the collectors in reg, which must be fresh.
func newPromMetrics(reg prometheus.Registerer) *promMetrics {
	byName := []string{"name"}
	gauge := func(name string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: name, Help: name}, byName)
	}
	counter := func(name string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: name, Help: name}, byName)
	}
	histogram := func(name string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: name, Help: name,
			Buckets: prometheus.ExponentialBuckets(10e-9, 10, 10)}, byName)
	}
	m := &promMetrics{
		depth: gauge("depth"), unfinished: gauge("unfinished_work_seconds"), longest: gauge("longest_running_processor_seconds"),
		adds: counter("adds_total"), retries: counter("retries_total"),
		latency: histogram("queue_duration_seconds"), workDuration: histogram("work_duration_seconds"),
	}
	reg.MustRegister(m.depth, m.unfinished, m.longest, m.adds, m.retries, m.latency, m.workDuration)
	return m
}

// NewDepthMetric is the queue's workqueue_depth series.
func (m *promMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return m.depth.WithLabelValues(name)
}

// NewAddsMetric is the queue's workqueue_adds_total series.
func (m *promMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return m.adds.WithLabelValues(name)
}

// NewLatencyMetric is the queue's workqueue_queue_duration_seconds series.
func (m *promMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return m.latency.WithLabelValues(name)
}

// NewWorkDurationMetric is the queue's workqueue_work_duration_seconds series.
func (m *promMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return m.workDuration.WithLabelValues(name)
}

// NewUnfinishedWorkSecondsMetric is the queue's workqueue_unfinished_work_seconds series.
func (m *promMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return m.unfinished.WithLabelValues(name)
}

// NewLongestRunningProcessorSecondsMetric is the queue's workqueue_longest_running_processor_seconds series.
func (m *promMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return m.longest.WithLabelValues(name)
}

// NewRetriesMetric is the queue's workqueue_retries_total series.
func (m *promMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return m.retries.WithLabelValues(name)
}

// eachImpl runs run as one sub-benchmark per registered implementation,
// named name + "/impl=" + its registry name, the naming every benchmark of
// a family follows.
func eachImpl[N, G any](b *testing.B, impls labregistry.List[N, G], name string, run func(*testing.B, labregistry.Entry[N, G])) {
	for _, e := range impls {
		b.Run(name+"/impl="+e.Name, func(b *testing.B) { run(b, e) })
	}
}

// roundTripKeys is how many keys benchRoundTrips cycles through.
const roundTripKeys = 1024

// benchRoundTrips runs benchAddGetDone on every queue of impls, built by
// newQ, in every configuration: the single-worker round trip both queue
// families report, under one name scheme.
func benchRoundTrips[N, G any, Q workqueue.TypedInterface[string]](b *testing.B, impls labregistry.List[N, G], newQ func(*testing.B, labregistry.Entry[N, G], queueConfig) Q) {
	for _, c := range everyConfig {
		eachImpl(b, impls, fmt.Sprintf("op=add-get-done/keys=%d/%s", roundTripKeys, c), func(b *testing.B, e labregistry.Entry[N, G]) {
			benchAddGetDone(b, newQ(b, e, c), workKeys(roundTripKeys))
		})
	}
}

// benchAddGetDone is one worker's round trip on an otherwise empty queue,
// cycling through the keys so the queue hashes a different item each time.
func benchAddGetDone(b *testing.B, q workqueue.TypedInterface[string], keys []string) {
	defer q.ShutDown()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Add(keys[i])
		item, _ := q.Get()
		q.Done(item)
		if i++; i == len(keys) {
			i = 0
		}
	}
}

// benchAddDup adds items that are already queued: the path a burst of watch
// events for the same objects takes.
func benchAddDup(b *testing.B, q workqueue.TypedInterface[string], keys []string) {
	defer q.ShutDown()
	for _, k := range keys {
		q.Add(k)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Add(keys[i])
		if i++; i == len(keys) {
			i = 0
		}
	}
}

// consumerBatch is how many items a consumer processes between updates of
// the shared progress counter, so that counting does not become the
// contended cache line the benchmark measures.
const consumerBatch = 32

// benchPipeline is a closed loop modelled on a controller whose objects keep
// changing: every key is always either queued, being processed, or about to
// be added again. Each key belongs to one producer; a consumer Gets and Dones
// an item and hands its key back to the owning producer (a buffered
// channel), which Adds it again. So every Add enqueues (the dedup path has
// its own benchmark), the queue holds up to len(keys) items, and neither side
// spins: a producer with no key to add blocks, as an informer with no event
// does. Every key starts queued: the first Adds are setup, done before the
// timer starts, so the measured region is the loop alone and not also a
// burst of len(keys) Adds into an empty queue (at keys=100000, a tenth of a
// b.N of a million). The run ends when consumers have handed out and
// finished b.N items; ns/op is per item: one Get, one Done and one Add.
//
// It uses b.N rather than b.Loop: the work happens on other goroutines and
// must know its total in advance, and a per-item handshake with the
// benchmark goroutine would cost as much as the queue operations measured.
// Counting in batches lets the run overshoot by less than
// consumers×consumerBatch items, noise next to the b.N it settles on.
//
// add queues key i; nil means a plain q.Add, and BenchmarkPriorityQueue's
// mixed-priority case passes one that picks a priority, so both measure the
// very same loop.
func benchPipeline(b *testing.B, q workqueue.TypedInterface[string], keys []string, producers, consumers int, add func(i int)) {
	if add == nil {
		add = func(i int) { q.Add(keys[i]) }
	}
	b.ReportAllocs()
	// back[p] carries keys of producer p (key i belongs to i%producers)
	// from the consumers; room for all of them plus the stop sentinel, so
	// a consumer never blocks on it.
	back := make([]chan int, producers)
	for p := range back {
		back[p] = make(chan int, len(keys)/producers+2)
	}
	const stopSentinel = -1
	target := int64(b.N)
	var processed atomic.Int64
	reached := make(chan struct{})
	var wg sync.WaitGroup
	for i := range keys {
		add(i)
	}
	b.ResetTimer()
	for range consumers {
		wg.Go(func() {
			local := int64(0)
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Done(item)
				i := keyIndex(item)
				back[i%producers] <- i
				if local++; local == consumerBatch {
					if n := processed.Add(local); n >= target && n-local < target {
						close(reached)
					}
					local = 0
				}
			}
		})
	}
	var producing sync.WaitGroup
	for p := range producers {
		producing.Go(func() {
			for i := range back[p] {
				if i == stopSentinel {
					return
				}
				add(i)
			}
		})
	}
	<-reached
	b.StopTimer()
	for p := range back {
		back[p] <- stopSentinel
	}
	producing.Wait()
	q.ShutDown()
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// rateLimitedQueue names a rate-limiting queue under test: client-go's own
// (layer=clientgo) or this lab's layer over a registered base queue.
type rateLimitedQueue struct {
	layer, base string
	new         func(workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string]
}

func rateLimitedQueues() []rateLimitedQueue {
	qs := []rateLimitedQueue{{
		layer: "clientgo", base: "clientgo",
		new: func(l workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueue(l)
		},
	}}
	for _, e := range labregistry.WorkQueues[string]() {
		qs = append(qs, rateLimitedQueue{
			layer: "queuelab", base: e.Name,
			new: func(l workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
				q, err := workq.NewRateLimiting(e.New(), l, workq.LayerOptions{})
				if err != nil {
					panic(err) // no options: cannot fail
				}
				return q
			},
		})
	}
	return qs
}

// fixedDelay is a limiter that costs nothing, so a benchmark measures the
// layer rather than the limiter.
type fixedDelay time.Duration

func (d fixedDelay) When(string) time.Duration { return time.Duration(d) }
func (fixedDelay) Forget(string)               {}
func (fixedDelay) NumRequeues(string) int      { return 0 }

// BenchmarkRateLimitingQueue measures the delaying and rate-limiting layers —
// client-go's NewTypedRateLimitingQueue against this lab's layer over each
// base queue — on the retry paths a controller takes:
//
//   - op=addafter: AddAfter with a delay (one hour: nothing fires during the
//     run) cycling over the keys, so after the first lap every call finds the
//     item waiting and keeps the earlier deadline.
//   - op=addafter-zero: AddAfter with d = 0, which must cost no more than Add.
//   - op=addratelimited: AddRateLimited with client-go's
//     DefaultTypedControllerRateLimiter, as controllers call it.
func BenchmarkRateLimitingQueue(b *testing.B) {
	const keys = 1024
	ks := workKeys(keys)
	ops := []struct {
		name    string
		limiter func() workqueue.TypedRateLimiter[string]
		call    func(q workqueue.TypedRateLimitingInterface[string], key string)
	}{
		{"addafter", func() workqueue.TypedRateLimiter[string] { return fixedDelay(0) },
			func(q workqueue.TypedRateLimitingInterface[string], k string) { q.AddAfter(k, time.Hour) }},
		{"addafter-zero", func() workqueue.TypedRateLimiter[string] { return fixedDelay(0) },
			func(q workqueue.TypedRateLimitingInterface[string], k string) { q.AddAfter(k, 0) }},
		{"addratelimited", workqueue.DefaultTypedControllerRateLimiter[string],
			func(q workqueue.TypedRateLimitingInterface[string], k string) { q.AddRateLimited(k) }},
	}
	for _, op := range ops {
		for _, rq := range rateLimitedQueues() {
			b.Run(fmt.Sprintf("op=%s/keys=%d/layer=%s/impl=%s", op.name, keys, rq.layer, rq.base), func(b *testing.B) {
				q := rq.new(op.limiter())
				defer q.ShutDown()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					op.call(q, ks[i])
					if i++; i == len(ks) {
						i = 0
					}
				}
			})
		}
	}
}

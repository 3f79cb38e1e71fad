// Package crmetrics publishes a work queue's client-go metrics as the same
// workqueue_* series controller-runtime's own queues publish, into
// controller-runtime's metrics registry (sigs.k8s.io/controller-runtime/pkg/metrics.Registry),
// so a controller that swaps its queue for one of queuelab's keeps its
// dashboards and alerts.
//
// controller-runtime's provider is internal to it, so a queue built outside
// controller-runtime cannot reach it. Provider is a workqueue.MetricsProvider
// with the same metric names, help texts, labels (name and controller, both
// the queue's name; depth also by priority) and histogram buckets. The
// collectors are registered once; when controller-runtime has already
// registered its own (it does as soon as its controller package is linked),
// Provider writes into those very collectors, so both kinds of queue appear
// side by side in one scrape.
//
// priorityq's queues use Provider when their Options name them and leave
// MetricsProvider nil, so nothing needs wiring there. A client-go work queue
// built by hand (workqueue.TypedQueueConfig.MetricsProvider, or
// TypedRateLimitingQueueConfig's) publishes like controller-runtime's with
// Provider{} as its provider; see the example. A queue whose provider
// implements PriorityProvider reports its depth per priority.
package crmetrics

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// MaxPriorities is how many distinct priorities one queue's depth gauge
// labels before it reports every priority under PriorityOverflow, as
// controller-runtime does, so a caller using many priorities cannot blow up
// the series count.
const MaxPriorities = 25

// PriorityOverflow is the priority label used once a queue has seen more
// than MaxPriorities priorities.
const PriorityOverflow = "exceeded_cardinality_limit"

// DepthWithPriority is a depth gauge with one value per priority.
type DepthWithPriority interface {
	Inc(priority int)
	Dec(priority int)
}

// PriorityProvider is a workqueue.MetricsProvider that can also label the
// depth gauge by priority. A priority queue given one reports depth per
// priority, as controller-runtime's priority queue does.
type PriorityProvider interface {
	workqueue.MetricsProvider
	NewDepthMetricWithPriority(name string) DepthWithPriority
}

// Provider publishes into controller-runtime's metrics registry. The zero
// value is ready to use; every Provider shares the same collectors.
type Provider struct{}

var (
	_ PriorityProvider = Provider{}

	once sync.Once
	vecs struct {
		depth, unfinished, longest *prometheus.GaugeVec
		adds, retries              *prometheus.CounterVec
		latency, workDuration      *prometheus.HistogramVec
	}
)

// durationBuckets are controller-runtime's: 10 ns to about 3 hours, ×10 a step.
func durationHistogram(name, help string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem:                       crmetrics.WorkQueueSubsystem,
		Name:                            name,
		Help:                            help,
		Buckets:                         prometheus.ExponentialBuckets(10e-9, 10, 12),
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  100,
		NativeHistogramMinResetDuration: time.Hour,
	}, labels)
}

var labels = []string{"name", "controller"}

func gauge(name, help string, extra ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: crmetrics.WorkQueueSubsystem, Name: name, Help: help}, append(labels[:len(labels):len(labels)], extra...))
}

func counter(name, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: crmetrics.WorkQueueSubsystem, Name: name, Help: help}, labels)
}

// register adds c to controller-runtime's registry, or returns the
// collector already registered under the same description.
func register[C prometheus.Collector](c C) C {
	err := crmetrics.Registry.Register(c)
	if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing
		}
	}
	if err != nil {
		// Only a collector of a different shape under the same name gets
		// here: a programming error in whoever registered it first.
		panic("crmetrics: " + err.Error())
	}
	return c
}

// The help texts must match controller-runtime's byte for byte: the
// registry refuses two descriptions of one name that differ.
func collectors() {
	once.Do(func() {
		vecs.depth = register(gauge(crmetrics.DepthKey, "Current depth of workqueue by workqueue and priority", "priority"))
		vecs.adds = register(counter(crmetrics.AddsKey, "Total number of adds handled by workqueue"))
		vecs.latency = register(durationHistogram(crmetrics.QueueLatencyKey, "How long in seconds an item stays in workqueue before being requested"))
		vecs.workDuration = register(durationHistogram(crmetrics.WorkDurationKey, "How long in seconds processing an item from workqueue takes."))
		vecs.unfinished = register(gauge(crmetrics.UnfinishedWorkKey, "How many seconds of work has been done that "+
			"is in progress and hasn't been observed by work_duration. Large "+
			"values indicate stuck threads. One can deduce the number of stuck "+
			"threads by observing the rate at which this increases."))
		vecs.longest = register(gauge(crmetrics.LongestRunningProcessorKey, "How many seconds has the longest running "+
			"processor for workqueue been running."))
		vecs.retries = register(counter(crmetrics.RetriesKey, "Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)"))
	})
}

// series is the queue's child of the collector *vec, which is read only
// after collectors() has registered (or adopted) every collector, hence a
// pointer. Every series but depth is labelled by name and controller alike.
func series[M any, V interface{ WithLabelValues(...string) M }](vec *V, name string) M {
	collectors()
	return (*vec).WithLabelValues(name, name)
}

// NewDepthMetric is the depth of a queue without priorities (priority "").
func (Provider) NewDepthMetric(name string) workqueue.GaugeMetric {
	collectors()
	return vecs.depth.WithLabelValues(name, name, "")
}

// NewAddsMetric counts the items that became ready.
func (Provider) NewAddsMetric(name string) workqueue.CounterMetric {
	return series(&vecs.adds, name)
}

// NewLatencyMetric observes how long items waited before a Get.
func (Provider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return series(&vecs.latency, name)
}

// NewWorkDurationMetric observes how long items took from Get to Done.
func (Provider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return series(&vecs.workDuration, name)
}

// NewUnfinishedWorkSecondsMetric is the summed age of items being processed.
func (Provider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return series(&vecs.unfinished, name)
}

// NewLongestRunningProcessorSecondsMetric is the age of the oldest item
// being processed.
func (Provider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return series(&vecs.longest, name)
}

// NewRetriesMetric counts adds with a positive delay.
func (Provider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return series(&vecs.retries, name)
}

// NewDepthMetricWithPriority is the depth of a priority queue, one series per
// priority up to MaxPriorities.
func (Provider) NewDepthMetricWithPriority(name string) DepthWithPriority {
	collectors()
	d := &priorityDepth{name: name}
	d.table.Store(&depthTable{})
	return d
}

// priorityDepth resolves each priority's gauge child once and publishes the
// priorities seen in an immutable table, so that Inc and Dec, called twice
// per item by every worker of the queue, take no lock, look nothing up in a
// map and allocate nothing: they scan at most MaxPriorities entries of a
// table that a queue's handful of priorities keeps to a few.
type priorityDepth struct {
	name  string
	mu    sync.Mutex // serialises the publication of a larger table
	table atomic.Pointer[depthTable]
}

// depthTable is the priorities seen and their gauges, or, once more than
// MaxPriorities were seen, the overflow gauge every priority reports to.
type depthTable struct {
	prios    []int
	gauges   []prometheus.Gauge
	overflow prometheus.Gauge
}

func (d *priorityDepth) gauge(priority int) prometheus.Gauge {
	t := d.table.Load()
	if t.overflow != nil {
		return t.overflow
	}
	if i := slices.Index(t.prios, priority); i >= 0 {
		return t.gauges[i]
	}
	return d.add(priority)
}

// add publishes a table with priority, or the overflow table.
func (d *priorityDepth) add(priority int) prometheus.Gauge {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.table.Load()
	if t.overflow != nil {
		return t.overflow
	}
	if i := slices.Index(t.prios, priority); i >= 0 {
		return t.gauges[i]
	}
	if len(t.prios) >= MaxPriorities {
		next := &depthTable{overflow: vecs.depth.WithLabelValues(d.name, d.name, PriorityOverflow)}
		d.table.Store(next)
		return next.overflow
	}
	g := vecs.depth.WithLabelValues(d.name, d.name, strconv.Itoa(priority))
	d.table.Store(&depthTable{
		prios:  append(slices.Clip(t.prios), priority),
		gauges: append(slices.Clip(t.gauges), g),
	})
	return g
}

// Inc counts one more ready item of priority.
func (d *priorityDepth) Inc(priority int) { d.gauge(priority).Inc() }

// Dec counts one ready item of priority less.
func (d *priorityDepth) Dec(priority int) { d.gauge(priority).Dec() }

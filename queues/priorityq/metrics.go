package priorityq

import (
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/queues/priorityq/crmetrics"
)

// unfinishedWorkPeriod is how often the unfinished-work gauges are
// refreshed, as in client-go and controller-runtime.
const unfinishedWorkPeriod = 500 * time.Millisecond

// metrics are one queue's client-go workqueue metrics with
// controller-runtime's priority-queue semantics: adds and depth count items
// as they become ready (a delayed item when its delay expires), retries
// count adds with a positive delay, queue latency runs from becoming ready
// to Get and work duration from Get to Done. The per-item times live in the
// queue's records, so metrics cost no map and no allocation; the depth per
// priority (crmetrics) takes no lock either, so LockFree, which calls these
// methods concurrently, keeps its hot path free of locks.
type metrics struct {
	depth                 workqueue.GaugeMetric // nil when pdepth is set
	pdepth                crmetrics.DepthWithPriority
	adds, retries         workqueue.CounterMetric
	latency, workDuration workqueue.HistogramMetric
	unfinished, longest   workqueue.SettableGaugeMetric
}

// newMetrics returns nil (no metrics) for an empty name, as
// controller-runtime does.
func newMetrics(p workqueue.MetricsProvider, name string) *metrics {
	if name == "" || p == nil {
		return nil
	}
	m := &metrics{
		adds:         p.NewAddsMetric(name),
		retries:      p.NewRetriesMetric(name),
		latency:      p.NewLatencyMetric(name),
		workDuration: p.NewWorkDurationMetric(name),
		unfinished:   p.NewUnfinishedWorkSecondsMetric(name),
		longest:      p.NewLongestRunningProcessorSecondsMetric(name),
	}
	if pp, ok := p.(crmetrics.PriorityProvider); ok {
		m.pdepth = pp.NewDepthMetricWithPriority(name)
	} else {
		m.depth = p.NewDepthMetric(name)
	}
	return m
}

func (m *metrics) add(prio int) {
	m.adds.Inc()
	if m.pdepth != nil {
		m.pdepth.Inc(prio)
	} else {
		m.depth.Inc()
	}
}

func (m *metrics) get(prio int) {
	if m.pdepth != nil {
		m.pdepth.Dec(prio)
	} else {
		m.depth.Dec()
	}
}

// raise moves a ready item's depth from one priority to another.
func (m *metrics) raise(from, to int) {
	if m.pdepth != nil {
		m.pdepth.Dec(from)
		m.pdepth.Inc(to)
	}
}

// refresher sets the unfinished-work gauges every unfinishedWorkPeriod from
// scan, which sums the processing items' ages, until stop.
type refresher struct {
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

func (m *metrics) start(scan func(total, oldest *float64)) *refresher {
	r := &refresher{stop: make(chan struct{})}
	r.wg.Go(func() {
		t := time.NewTicker(unfinishedWorkPeriod)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
				var total, oldest float64
				scan(&total, &oldest)
				m.unfinished.Set(total)
				m.longest.Set(oldest)
			}
		}
	})
	return r
}

// halt stops the refresher and waits for it; safe on nil and more than once.
func (r *refresher) halt() {
	if r == nil {
		return
	}
	r.once.Do(func() { close(r.stop) })
	r.wg.Wait()
}

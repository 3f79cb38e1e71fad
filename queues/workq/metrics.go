package workq

import (
	"errors"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// unfinishedWorkPeriod is how often the unfinished-work gauges are refreshed,
// as in client-go.
const unfinishedWorkPeriod = 500 * time.Millisecond

// WithMetrics makes a Mutex queue report client-go's workqueue metrics
// (depth, adds, queue latency, work duration, unfinished work, longest
// running processor) through provider under name, so a controller moving to
// this package keeps its dashboards. It starts one goroutine, which
// refreshes the unfinished-work gauges every 500 ms and stops at shutdown.
// clk may be nil for the real clock. The metrics are updated under the
// queue's lock, so they must be cheap and must not block or panic, as
// client-go's Prometheus-backed ones are. Sharded and Ring do not take it.
func WithMetrics(provider workqueue.MetricsProvider, name string, clk clock.WithTicker) Option {
	return func(o *options) error {
		o.set = append(o.set, "WithMetrics")
		if provider == nil || name == "" {
			return errors.New("workq: WithMetrics: need a provider and a non-empty name")
		}
		if clk == nil {
			clk = clock.RealClock{}
		}
		o.metrics = &metricsConfig{provider: provider, name: name, clock: clk}
		return nil
	}
}

type metricsConfig struct {
	provider workqueue.MetricsProvider
	name     string
	clock    clock.WithTicker
}

// queueMetrics keeps client-go's metric semantics: an item counts as added
// (adds, depth) when Add marks it dirty, its queue latency runs from the
// first such Add to the Get that hands it out, and its work duration from
// that Get to Done. Its methods are called under the queue's lock, except
// the refresher's, which takes it.
type queueMetrics[T comparable] struct {
	clock                 clock.WithTicker
	depth                 workqueue.GaugeMetric
	adds                  workqueue.CounterMetric
	latency, workDuration workqueue.HistogramMetric
	unfinished, longest   workqueue.SettableGaugeMetric
	addedAt, startedAt    map[T]time.Time

	stop chan struct{}
	wg   sync.WaitGroup
}

func newQueueMetrics[T comparable](c *metricsConfig) *queueMetrics[T] {
	p, n := c.provider, c.name
	return &queueMetrics[T]{
		clock:        c.clock,
		depth:        p.NewDepthMetric(n),
		adds:         p.NewAddsMetric(n),
		latency:      p.NewLatencyMetric(n),
		workDuration: p.NewWorkDurationMetric(n),
		unfinished:   p.NewUnfinishedWorkSecondsMetric(n),
		longest:      p.NewLongestRunningProcessorSecondsMetric(n),
		addedAt:      make(map[T]time.Time),
		startedAt:    make(map[T]time.Time),
		stop:         make(chan struct{}),
	}
}

func (m *queueMetrics[T]) marked(item T) {
	m.adds.Inc()
	m.depth.Inc()
	if _, ok := m.addedAt[item]; !ok {
		m.addedAt[item] = m.clock.Now()
	}
}

func (m *queueMetrics[T]) handedOut(item T) {
	now := m.clock.Now()
	m.depth.Dec()
	m.startedAt[item] = now
	if t, ok := m.addedAt[item]; ok {
		m.latency.Observe(now.Sub(t).Seconds())
		delete(m.addedAt, item)
	}
}

func (m *queueMetrics[T]) finished(item T) {
	if t, ok := m.startedAt[item]; ok {
		m.workDuration.Observe(m.clock.Since(t).Seconds())
		delete(m.startedAt, item)
	}
}

// refresh sets the unfinished-work gauges from the items being processed.
func (m *queueMetrics[T]) refresh() {
	var total, oldest float64
	for _, t := range m.startedAt {
		age := m.clock.Since(t).Seconds()
		total += age
		oldest = max(oldest, age)
	}
	m.unfinished.Set(total)
	m.longest.Set(oldest)
}

// run refreshes the gauges every unfinishedWorkPeriod, under lock, until
// halt.
func (m *queueMetrics[T]) run(lock sync.Locker, shutdown func() bool) {
	ticker := m.clock.NewTicker(unfinishedWorkPeriod) // from the first tick on
	m.wg.Go(func() {
		defer ticker.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-ticker.C():
				lock.Lock()
				if !shutdown() {
					m.refresh()
				}
				lock.Unlock()
			}
		}
	})
}

// halt stops the refresher and waits for it; it must not be called under
// the queue's lock, and only once.
func (m *queueMetrics[T]) halt() {
	close(m.stop)
	m.wg.Wait()
}

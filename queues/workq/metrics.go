package workq

import (
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// unfinishedWorkPeriod is how often the unfinished-work gauges are refreshed,
// as in client-go.
const unfinishedWorkPeriod = 500 * time.Millisecond

type metricsConfig struct {
	provider workqueue.MetricsProvider
	name     string
	clock    clock.WithTicker
}

// queueMetrics (Options.MetricsProvider) keeps client-go's metric semantics: an item counts as added
// (adds, depth) when Add marks it dirty, its queue latency runs from the
// first such Add to the Get that hands it out, and its work duration from
// that Get to Done. It has its own lock, so the shards of a Sharded queue
// and the lock-free Get of a Ring share one set of metrics. A nil
// *queueMetrics is a queue without metrics: every method does nothing.
type queueMetrics[T comparable] struct {
	clock                 clock.WithTicker
	depth                 workqueue.GaugeMetric
	adds                  workqueue.CounterMetric
	latency, workDuration workqueue.HistogramMetric
	unfinished, longest   workqueue.SettableGaugeMetric

	mu                 sync.Mutex
	addedAt, startedAt map[T]time.Time
	down               bool // shut down: the gauges are no longer refreshed

	stop     chan struct{}
	wg       sync.WaitGroup
	stopOnce sync.Once
}

// newQueueMetrics returns nil for nil c, and otherwise metrics whose
// refresher runs until halt.
func newQueueMetrics[T comparable](c *metricsConfig) *queueMetrics[T] {
	if c == nil {
		return nil
	}
	p, n := c.provider, c.name
	m := &queueMetrics[T]{
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
	m.run()
	return m
}

// marked counts an Add that marked item dirty.
func (m *queueMetrics[T]) marked(item T) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.adds.Inc()
	m.depth.Inc()
	if _, ok := m.addedAt[item]; !ok {
		m.addedAt[item] = m.clock.Now()
	}
}

// handedOut counts a Get that handed item out.
func (m *queueMetrics[T]) handedOut(item T) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.Now()
	m.depth.Dec()
	m.startedAt[item] = now
	if t, ok := m.addedAt[item]; ok {
		m.latency.Observe(now.Sub(t).Seconds())
		delete(m.addedAt, item)
	}
}

// finished counts a Done of item.
func (m *queueMetrics[T]) finished(item T) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.startedAt[item]; ok {
		m.workDuration.Observe(m.clock.Since(t).Seconds())
		delete(m.startedAt, item)
	}
}

// refresh sets the unfinished-work gauges from the items being processed,
// unless the queue is shut down.
func (m *queueMetrics[T]) refresh() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return
	}
	var total, oldest float64
	for _, t := range m.startedAt {
		age := m.clock.Since(t).Seconds()
		total += age
		oldest = max(oldest, age)
	}
	m.unfinished.Set(total)
	m.longest.Set(oldest)
}

// run refreshes the gauges every unfinishedWorkPeriod until halt.
func (m *queueMetrics[T]) run() {
	ticker := m.clock.NewTicker(unfinishedWorkPeriod) // from the first tick on
	m.wg.Go(func() {
		defer ticker.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-ticker.C():
				m.refresh()
			}
		}
	})
}

// halt stops the refresher and waits for it. The queue calls it at every
// shutdown, not under its own lock; only the first call does anything.
func (m *queueMetrics[T]) halt() {
	if m == nil {
		return
	}
	m.stopOnce.Do(func() {
		m.mu.Lock()
		m.down = true
		m.mu.Unlock()
		close(m.stop)
		m.wg.Wait()
	})
}

package workq

import (
	"iter"
	"maps"
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

// queueMetrics (Options.MetricsProvider) publishes client-go's queue
// metrics with client-go's semantics: an item counts as added (adds, depth)
// when Add marks it dirty, its queue latency runs from that Add to the Get
// that hands it out, its work duration from that Get to Done, and the
// unfinished-work gauges are set every unfinishedWorkPeriod from the items
// being processed until the queue shuts down.
//
// It holds the series, the clock and the refresher; the per-item times are
// kept by the queue: Mutex and Sharded in their tables' records, under the
// lock the operation holds anyway (see stamps), Ring in a keyedMetrics.
// A nil *queueMetrics is a queue without metrics.
//
// Times are kept as durations since base, read with clock.Since: on the
// real clock that reads only the monotonic clock, where Now reads the wall
// clock as well, and differences of such readings are exactly the
// differences of the times client-go keeps.
type queueMetrics struct {
	clock                 clock.WithTicker
	base                  time.Time
	depth                 workqueue.GaugeMetric
	adds                  workqueue.CounterMetric
	latency, workDuration workqueue.HistogramMetric
	unfinished, longest   workqueue.SettableGaugeMetric

	stop     chan struct{}
	wg       sync.WaitGroup
	stopOnce sync.Once
}

// newQueueMetrics returns nil for nil c; the caller starts the refresher.
func newQueueMetrics(c *metricsConfig) *queueMetrics {
	if c == nil {
		return nil
	}
	p, n := c.provider, c.name
	return &queueMetrics{
		clock:        c.clock,
		base:         c.clock.Now(),
		depth:        p.NewDepthMetric(n),
		adds:         p.NewAddsMetric(n),
		latency:      p.NewLatencyMetric(n),
		workDuration: p.NewWorkDurationMetric(n),
		unfinished:   p.NewUnfinishedWorkSecondsMetric(n),
		longest:      p.NewLongestRunningProcessorSecondsMetric(n),
		stop:         make(chan struct{}),
	}
}

// now is the current time as a duration since m.base.
func (m *queueMetrics) now() time.Duration { return m.clock.Since(m.base) }

// marked counts an Add that marked an item dirty. Called under the lock
// that orders it before the item's handedOut, so depth never dips below
// what client-go could show.
func (m *queueMetrics) marked() {
	m.adds.Inc()
	m.depth.Inc()
}

// setUnfinished sets the unfinished-work gauges from the start times of the
// items being processed, as client-go's updateUnfinishedWork does. The
// caller holds whatever keeps started from changing.
func (m *queueMetrics) setUnfinished(now time.Duration, started iter.Seq[time.Duration]) {
	var total, oldest float64
	for t := range started {
		age := (now - t).Seconds()
		total += age
		oldest = max(oldest, age)
	}
	m.unfinished.Set(total)
	m.longest.Set(oldest)
}

// run calls refresh every unfinishedWorkPeriod until halt. refresh must
// check, under the queue's lock, that the queue is not shut down, as
// client-go's refresher does.
func (m *queueMetrics) run(refresh func()) {
	ticker := m.clock.NewTicker(unfinishedWorkPeriod) // from the first tick on
	m.wg.Go(func() {
		defer ticker.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-ticker.C():
				refresh()
			}
		}
	})
}

// halt stops the refresher and waits for it. The queue calls it at every
// shutdown, not under its own lock; only the first call does anything.
func (m *queueMetrics) halt() {
	if m == nil {
		return
	}
	m.stopOnce.Do(func() {
		close(m.stop)
		m.wg.Wait()
	})
}

// keyedMetrics is queueMetrics for Ring, whose lock-free Get holds no lock
// a per-item record could be kept under: it keeps the items' times in two
// maps under its own lock. A nil *keyedMetrics is a queue without metrics:
// every method does nothing.
type keyedMetrics[T comparable] struct {
	*queueMetrics

	mu                 sync.Mutex
	addedAt, startedAt map[T]time.Duration
	down               bool // shut down: the gauges are no longer refreshed
}

// newKeyedMetrics returns nil for nil c, and otherwise metrics whose
// refresher runs until halt.
func newKeyedMetrics[T comparable](c *metricsConfig) *keyedMetrics[T] {
	if c == nil {
		return nil
	}
	m := &keyedMetrics[T]{
		queueMetrics: newQueueMetrics(c),
		addedAt:      make(map[T]time.Duration),
		startedAt:    make(map[T]time.Duration),
	}
	m.run(m.refresh)
	return m
}

// marked counts an Add that marked item dirty.
func (m *keyedMetrics[T]) marked(item T) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queueMetrics.marked()
	if _, ok := m.addedAt[item]; !ok {
		m.addedAt[item] = m.now()
	}
}

// handedOut counts a Get that handed item out.
func (m *keyedMetrics[T]) handedOut(item T) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now() // both the end of the wait and the start of the work
	m.depth.Dec()
	m.startedAt[item] = now
	if t, ok := m.addedAt[item]; ok {
		m.latency.Observe((now - t).Seconds())
		delete(m.addedAt, item)
	}
}

// finished counts a Done of item.
func (m *keyedMetrics[T]) finished(item T) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.startedAt[item]; ok {
		m.workDuration.Observe((m.now() - t).Seconds())
		delete(m.startedAt, item)
	}
}

// refresh sets the unfinished-work gauges, unless the queue is shut down.
func (m *keyedMetrics[T]) refresh() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return
	}
	m.setUnfinished(m.now(), maps.Values(m.startedAt))
}

// halt marks the queue shut down for the refresher, then stops it.
func (m *keyedMetrics[T]) halt() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.down = true
	m.mu.Unlock()
	m.queueMetrics.halt()
}

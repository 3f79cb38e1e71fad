package workq_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/queuelab/queuelab/queues/workq"
)

// recorder is a workqueue.MetricsProvider whose metrics remember their last
// value (gauges, counters) or every observation (histograms).
type recorder struct {
	mu     sync.Mutex
	values map[string]float64
	obs    map[string][]float64
}

type recMetric struct {
	r    *recorder
	name string
}

func (m recMetric) Inc()              { m.r.add(m.name, 1) }
func (m recMetric) Dec()              { m.r.add(m.name, -1) }
func (m recMetric) Set(v float64)     { m.r.set(m.name, v) }
func (m recMetric) Observe(v float64) { m.r.observe(m.name, v) }

func (r *recorder) add(name string, d float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.values[name] += d
}

func (r *recorder) set(name string, v float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.values[name] = v
}

func (r *recorder) observe(name string, v float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.obs[name] = append(r.obs[name], v)
}

func (r *recorder) value(name string) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.values[name]
}

func (r *recorder) observed(name string) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]float64(nil), r.obs[name]...)
}

func (r *recorder) NewDepthMetric(string) workqueue.GaugeMetric  { return recMetric{r, "depth"} }
func (r *recorder) NewAddsMetric(string) workqueue.CounterMetric { return recMetric{r, "adds"} }
func (r *recorder) NewLatencyMetric(string) workqueue.HistogramMetric {
	return recMetric{r, "latency"}
}
func (r *recorder) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return recMetric{r, "work"}
}
func (r *recorder) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return recMetric{r, "unfinished"}
}
func (r *recorder) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return recMetric{r, "longest"}
}
func (r *recorder) NewRetriesMetric(string) workqueue.CounterMetric { return recMetric{r, "retries"} }

// Mutex reports client-go's queue metrics with client-go's semantics.
func TestMutexMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{values: map[string]float64{}, obs: map[string][]float64{}}
		clk := clocktesting.NewFakeClock(time.Now())
		q, err := workq.NewMutex[string](workq.WithMetrics(rec, "test", clk))
		if err != nil {
			t.Fatal(err)
		}
		q.Add("a")
		q.Add("a") // dedup: not counted
		clk.Step(time.Second)
		q.Get()
		q.Add("a") // marked dirty while processing: counted
		clk.Step(2 * time.Second)
		synctest.Wait() // the refresher has seen the 500 ms ticks
		if u := rec.value("unfinished"); u != 2 {
			t.Errorf("unfinished work = %v s, want 2", u)
		}
		q.Done("a")
		if got := rec.observed("latency"); len(got) != 1 || got[0] != 1 {
			t.Errorf("latency observations = %v, want [1]", got)
		}
		if got := rec.observed("work"); len(got) != 1 || got[0] != 2 {
			t.Errorf("work duration observations = %v, want [2]", got)
		}
		if a, d := rec.value("adds"), rec.value("depth"); a != 2 || d != 1 {
			t.Errorf("adds, depth = %v, %v, want 2, 1", a, d)
		}
		q.ShutDown() // stops the refresher; the bubble checks it exited
	})
}

// The layers count retries as client-go's delaying queue does.
func TestRetryMetrics(t *testing.T) {
	rec := &recorder{values: map[string]float64{}, obs: map[string][]float64{}}
	base, _ := workq.NewMutex[string]()
	q, err := workq.NewRateLimiting(base, workqueue.DefaultTypedControllerRateLimiter[string](),
		workq.WithRetryMetrics(rec, "test"))
	if err != nil {
		t.Fatal(err)
	}
	q.AddRateLimited("a")
	q.AddAfter("b", 0)
	q.ShutDown()
	q.AddAfter("c", time.Second) // after shutdown: not a retry
	if r := rec.value("retries"); r != 2 {
		t.Errorf("retries = %v, want 2", r)
	}
}

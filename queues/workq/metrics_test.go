package workq_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/queuelab/queuelab/internal/suite"
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

func newRecorder() *recorder {
	return &recorder{values: map[string]float64{}, obs: map[string][]float64{}}
}

// snapshot is everything a recorder holds, for comparing two of them.
func (r *recorder) snapshot() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprint(r.values, r.obs)
}

// Every queue publishes the metrics client-go's queue publishes for the
// same operations: a seeded sequence of Adds (new, duplicate, of items
// being processed), Gets, Dones and clock steps, with the metrics compared
// after every step. Sharded runs with one shard, so that it hands items out
// in client-go's order and the latencies are of the same items.
func TestMetricsMatchClientGo(t *testing.T) {
	impls := map[string]func(workqueue.MetricsProvider, clock.WithTicker) (workqueue.TypedInterface[string], error){
		"mutex": func(p workqueue.MetricsProvider, c clock.WithTicker) (workqueue.TypedInterface[string], error) {
			return workq.NewMutex[string](workq.Options{MetricsProvider: p, Name: "q", Clock: c})
		},
		"sharded": func(p workqueue.MetricsProvider, c clock.WithTicker) (workqueue.TypedInterface[string], error) {
			return workq.NewSharded[string](workq.Options{Shards: 1, MetricsProvider: p, Name: "q", Clock: c})
		},
		"ring": func(p workqueue.MetricsProvider, c clock.WithTicker) (workqueue.TypedInterface[string], error) {
			return workq.NewRing[string](workq.Options{MetricsProvider: p, Name: "q", Clock: c})
		},
	}
	for name, newQueue := range impls {
		for seed := range uint64(10) {
			t.Run(fmt.Sprintf("impl=%s/seed=%d", name, seed), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { compareMetrics(t, seed, newQueue) })
			})
		}
	}
}

func compareMetrics(t *testing.T, seed uint64, newQueue func(workqueue.MetricsProvider, clock.WithTicker) (workqueue.TypedInterface[string], error)) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	wantRec, gotRec := newRecorder(), newRecorder()
	want := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "q", MetricsProvider: wantRec, Clock: clk})
	defer want.ShutDown()
	got, err := newQueue(gotRec, clk)
	if err != nil {
		t.Fatal(err)
	}
	defer got.ShutDown() // stops the refresher; the bubble checks it exited
	synctest.Wait()      // client-go's refresher creates its ticker
	rng := rand.New(rand.NewPCG(seed, 0))
	var processing []string
	var trace []string
	for step := range 300 {
		var op string
		switch r := rng.IntN(10); {
		case r < 4:
			k := fmt.Sprint("k", rng.IntN(5))
			op = "add " + k
			want.Add(k)
			got.Add(k)
		case r < 6 && want.Len() > 0:
			w, _ := want.Get()
			g, _ := got.Get()
			op = "get " + w
			if w != g {
				t.Fatalf("seed %d step %d: Get = %q, client-go %q\n%s", seed, step, g, w, strings.Join(trace, "\n"))
			}
			processing = append(processing, w)
		case r < 8 && len(processing) > 0:
			i := rng.IntN(len(processing))
			k := processing[i]
			processing = slices.Delete(processing, i, i+1)
			op = "done " + k
			want.Done(k)
			got.Done(k)
		default:
			d := time.Duration(rng.IntN(5)) * 250 * time.Millisecond
			op = "step " + d.String()
			clk.Step(d)
			synctest.Wait() // both refreshers have seen the tick
		}
		trace = append(trace, op)
		if w, g := wantRec.snapshot(), gotRec.snapshot(); w != g {
			t.Fatalf("seed %d step %d: metrics\n got %s\nwant %s\nops:\n%s", seed, step, g, w, strings.Join(trace, "\n"))
		}
	}
}

// The layers count retries as client-go's delaying queue does.
func TestRetryMetrics(t *testing.T) {
	rec := newRecorder()
	base, _ := workq.NewMutex[string](workq.Options{})
	q, err := workq.NewRateLimiting(base, workqueue.DefaultTypedControllerRateLimiter[string](),
		workq.LayerOptions{MetricsProvider: rec, Name: "test"})
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

// Under concurrent producers and workers, the metrics of every queue stay
// consistent: each counted Add leads to one hand-out (one latency
// observation) and one Done (one work-duration observation), and the depth
// returns to zero. Run under -race, it also checks that Sharded's shards and
// Ring's lock-free Get share the metrics safely.
func TestMetricsUnderConcurrency(t *testing.T) {
	impls := map[string]func(workqueue.MetricsProvider) (workqueue.TypedInterface[string], error){
		"mutex": func(p workqueue.MetricsProvider) (workqueue.TypedInterface[string], error) {
			return workq.NewMutex[string](workq.Options{MetricsProvider: p, Name: "q"})
		},
		"sharded": func(p workqueue.MetricsProvider) (workqueue.TypedInterface[string], error) {
			return workq.NewSharded[string](workq.Options{MetricsProvider: p, Name: "q"})
		},
		"ring": func(p workqueue.MetricsProvider) (workqueue.TypedInterface[string], error) {
			return workq.NewRing[string](workq.Options{MetricsProvider: p, Name: "q"})
		},
	}
	for name, newQueue := range impls {
		t.Run("impl="+name, func(t *testing.T) {
			rec := newRecorder()
			q, err := newQueue(rec)
			if err != nil {
				t.Fatal(err)
			}
			var producers, workers sync.WaitGroup
			for p := range 4 {
				producers.Go(func() {
					for i := range 2000 {
						q.Add(fmt.Sprint("k", (p*7+i)%50))
					}
				})
			}
			for range 4 {
				workers.Go(func() { suite.Worker[string](q) })
			}
			producers.Wait()
			q.ShutDownWithDrain()
			workers.Wait()
			adds := int(rec.value("adds"))
			if d := rec.value("depth"); d != 0 {
				t.Errorf("depth = %v after the drain, want 0", d)
			}
			if l, w := len(rec.observed("latency")), len(rec.observed("work")); l != adds || w != adds {
				t.Errorf("%d adds counted, %d latencies, %d work durations: want all equal", adds, l, w)
			}
		})
	}
}

// refresher is a queue whose unfinished-work refresh a test can run at will.
type refresher interface {
	workqueue.TypedInterface[string]
	Refresh()
}

// newMetricsQueue builds the queue impl names with metrics from p on clk;
// Sharded has its default shard count, so the refresh walks several shards.
func newMetricsQueue(t *testing.T, impl string, p workqueue.MetricsProvider, clk clock.WithTicker) refresher {
	o := workq.Options{MetricsProvider: p, Name: "q", Clock: clk}
	var q refresher
	var err error
	switch impl {
	case "mutex":
		q, err = workq.NewMutex[string](o)
	case "sharded":
		q, err = workq.NewSharded[string](o)
	case "ring":
		q, err = workq.NewRing[string](o)
	}
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// The unfinished-work gauges follow the items being processed, whatever
// order they finish in, and ignore the items only queued: a backlog
// behind the workers adds nothing.
func TestMetricsRefreshSeesProcessingItems(t *testing.T) {
	eachMetricsQueue(t, func(t *testing.T, q refresher, rec *recorder, clk *clocktesting.FakeClock) {
		defer q.ShutDown()
		tick := func(wantTotal, wantLongest float64) {
			t.Helper()
			clk.Step(unfinishedWorkPeriod)
			synctest.Wait()
			if u, l := rec.value("unfinished"), rec.value("longest"); u != wantTotal || l != wantLongest {
				t.Fatalf("at %v: unfinished %v, longest %v; want %v, %v", clk.Since(time.Unix(0, 0)), u, l, wantTotal, wantLongest)
			}
		}
		for i := range 3 {
			q.Add(fmt.Sprint("k", i))
		}
		a, _ := q.Get()
		tick(0.5, 0.5)
		b, _ := q.Get()
		for i := range 5000 {
			q.Add(fmt.Sprint("backlog", i))
		}
		tick(1.5, 1) // a for 1s, b for 0.5s
		q.Done(a)    // the first one started goes first
		tick(1, 1)
		c, _ := q.Get()
		tick(2, 1.5) // b for 1.5s, c for 0.5s
		q.Done(c)    // the last one started goes first
		tick(2, 2)
		q.Done(b)
		tick(0, 0)
	})
}

// eachMetricsQueue runs body in a synctest bubble for each queue kind,
// built with metrics on rec and the fake clock clk, once its refresher
// has its ticker.
func eachMetricsQueue(t *testing.T, body func(t *testing.T, q refresher, rec *recorder, clk *clocktesting.FakeClock)) {
	for _, name := range []string{"mutex", "sharded", "ring"} {
		t.Run("impl="+name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := clocktesting.NewFakeClock(time.Unix(0, 0))
				rec := newRecorder()
				q := newMetricsQueue(t, name, rec, clk)
				synctest.Wait() // the refresher has its ticker
				body(t, q, rec, clk)
			})
		})
	}
}

// unfinishedWorkPeriod is client-go's refresh period of the
// unfinished-work gauges.
const unfinishedWorkPeriod = 500 * time.Millisecond

// Once the queue is shut down, the gauges are no longer refreshed, as in
// client-go, even by a tick that lands between the shutdown and the
// refresher's halt, and even with items still being processed.
func TestMetricsNotRefreshedAfterShutdown(t *testing.T) {
	eachMetricsQueue(t, func(t *testing.T, q refresher, rec *recorder, clk *clocktesting.FakeClock) {
		q.Add("a")
		q.Get()
		clk.Step(unfinishedWorkPeriod)
		synctest.Wait()
		if u := rec.value("unfinished"); u != 0.5 {
			t.Fatalf("unfinished %v before the shutdown, want 0.5", u)
		}
		q.ShutDown()
		clk.Step(10 * unfinishedWorkPeriod)
		synctest.Wait()
		q.Refresh() // a tick that raced the shutdown
		if u, l := rec.value("unfinished"), rec.value("longest"); u != 0.5 || l != 0.5 {
			t.Errorf("after the shutdown: unfinished %v, longest %v; want them left at 0.5", u, l)
		}
		q.Done("a")
		if w := rec.observed("work"); len(w) != 1 || w[0] != 5.5 {
			t.Errorf("work durations %v, want [5.5]: Done after shutdown still observes", w)
		}
	})
}

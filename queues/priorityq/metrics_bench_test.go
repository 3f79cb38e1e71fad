package priorityq

import (
	"strconv"
	"testing"
	"time"

	"github.com/queuelab/queuelab/queues/priorityq/crmetrics"
)

// BenchmarkMetricsCost splits the cost of a named queue's metrics from the
// queue's: one engine round trip (add, pop, done; 1,000 items parked an hour
// ahead, as the bench module's metrics=on/delayed=1000 level) without and
// with metrics, against "provider", the metric updates controller-runtime's
// semantics require of every round trip and nothing else (adds and depth up,
// depth down, three clock readings, the latency and work-duration
// observations), and "clock", one of those readings. metrics=on minus
// metrics=off close to provider means the queue's own metrics bookkeeping
// costs next to nothing and what remains is the provider's and the clock's.
func BenchmarkMetricsCost(b *testing.B) {
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = "key-" + strconv.Itoa(i)
	}
	for _, on := range []bool{false, true} {
		name := "engine/metrics=off"
		if on {
			name = "engine/metrics=on"
		}
		b.Run(name, func(b *testing.B) {
			var m *metrics
			if on {
				m = newMetrics(crmetrics.Provider{}, "bench-metrics-cost")
			}
			var e engine[string]
			e.init(m)
			for i := range 1000 {
				e.add("parked-"+strconv.Itoa(i), 0, time.Hour)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				e.add(keys[i%len(keys)], 0, 0)
				key, _, _ := e.pop()
				e.done(key)
				i++
			}
		})
	}
	b.Run("provider", func(b *testing.B) {
		m := newMetrics(crmetrics.Provider{}, "bench-metrics-cost")
		var e engine[string]
		e.init(m)
		b.ReportAllocs()
		for b.Loop() {
			m.add(0)
			added := e.now()
			started := e.now()
			m.get(0)
			m.latency.Observe(seconds(started - added))
			m.workDuration.Observe(seconds(e.now() - started))
		}
	})
	b.Run("clock", func(b *testing.B) {
		var e engine[string]
		e.init(nil)
		var sum int64
		for b.Loop() {
			sum += e.now()
		}
		if sum == 0 {
			b.Fatal("the clock did not move")
		}
	})
}

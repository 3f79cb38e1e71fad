package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/priorityq"
	"github.com/queuelab/queuelab/queues/priorityq/priorityqtest"
)

// pqEntry is one of the lab's priority queues.
type pqEntry = registry.Entry[func(priorityq.Options[string]) (priorityq.PriorityQueue[string], error), priorityqtest.Guarantees]

// Priorities as controller-runtime assigns them: its handlers add the
// objects of an informer's initial list at LowPriority (-100) and later
// events at the default 0; a reconciler may ask for more.
var (
	lowPriority  = -100
	highPriority = 0
	topPriority  = 100
)

// newPriorityQueue builds e's queue in configuration c. With metrics, the
// queue is named, so it publishes through controller-runtime's provider as
// every controller-runtime controller's queue does: controller-runtime's
// own queue through its internal provider, the lab's through crmetrics,
// which writes into the same collectors. Both live in controller-runtime's
// process-wide registry and cannot be pointed at another, so every
// metrics=on queue reuses one name (metricsName) and so one set of series,
// which keeps the registry from growing from one sub-benchmark to the next;
// the series' values carry over, which costs nothing. The run is checked at
// the end to have counted adds.
func newPriorityQueue(b *testing.B, e pqEntry, c queueConfig) priorityq.PriorityQueue[string] {
	var o priorityq.Options[string]
	if c.metrics {
		o.Name = metricsName
		before := addsTotal(b, crmetrics.Registry)
		b.Cleanup(func() { requireAdds(b, crmetrics.Registry, before) })
	}
	q, err := e.New(o)
	if err != nil {
		b.Fatal(err)
	}
	c.park(q)
	return q
}

// BenchmarkPriorityQueue measures every registered priority queue,
// controller-runtime's included: the single-worker round trip, the closed
// pipeline of BenchmarkWorkQueue (items/s), the same pipeline with every
// add at one of three priorities, and the initial-list flood. The round
// trip and the pipelines also run in the configuration controller-runtime
// controllers run (queueConfig): metrics on, items parked behind AddAfter.
func BenchmarkPriorityQueue(b *testing.B) {
	pqs := registry.PriorityQueues[string]()
	benchRoundTrips(b, pqs, newPriorityQueue)
	const many = 100_000
	ks := workKeys(many)
	for _, workers := range []int{8, 64} {
		for _, c := range everyConfig {
			eachImpl(b, pqs, fmt.Sprintf("op=pipeline/workers=%d/keys=%d/%s", workers, many, c), func(b *testing.B, e pqEntry) {
				benchPipeline(b, newPriorityQueue(b, e, c), ks, workers, workers, nil)
			})
		}
	}
	eachImpl(b, pqs, fmt.Sprintf("op=mixed-priority/workers=8/keys=%d/%s", many, plain), func(b *testing.B, e pqEntry) {
		benchMixedPriority(b, newPriorityQueue(b, e, plain), ks, 8)
	})
	eachImpl(b, pqs, fmt.Sprintf("op=initial-list-flood/workers=8/keys=%d/%s", many, plain), func(b *testing.B, e pqEntry) {
		benchInitialListFlood(b, e, ks, 8)
	})
}

// benchMixedPriority is benchPipeline's closed loop, one producer, with
// every add at one of three priorities (by key), so the queue's ready items
// are always spread over three levels and Gets keep choosing among them.
func benchMixedPriority(b *testing.B, q priorityq.PriorityQueue[string], keys []string, workers int) {
	prios := [...]*int{&lowPriority, &highPriority, &topPriority}
	benchPipeline(b, q, keys, 1, workers, func(i int) {
		q.AddWithOpts(priorityq.AddOpts{Priority: prios[i%len(prios)]}, keys[i])
	})
}

// floodHigh is how many high-priority items one flood adds, one at a time.
const floodHigh = 200

// benchInitialListFlood models a controller restart: its informer's initial
// list puts len(keys) objects in the queue at low priority, workers start
// on that backlog, and meanwhile real changes arrive at the default (higher)
// priority. Each high-priority item is added once the previous one was
// handed out, and its wait — from its Add to the Get that hands it out —
// is recorded. Each round builds a fresh queue, floods it, and ends when
// all floodHigh items were handed out. Building the queue and adding the
// len(keys) backlog is setup, run with the timer stopped so allocs/op is the
// flood's, not the 100,000 adds'. It reports the waits' p50 and p99
// (nearest rank) and the items/s the workers moved over the rounds; ns/op
// would be the length of a round, which depends on the flood's size, so it
// is suppressed.
func benchInitialListFlood(b *testing.B, e pqEntry, keys []string, workers int) {
	b.ReportAllocs()
	high := make([]string, floodHigh)
	for j := range high {
		high[j] = "hi-" + strconv.Itoa(j)
	}
	low := priorityq.AddOpts{Priority: &lowPriority}
	normal := priorityq.AddOpts{Priority: &highPriority}
	var waits []time.Duration
	var moved int64
	var window time.Duration
	for b.Loop() {
		b.StopTimer()
		q := newPriorityQueue(b, e, plain)
		q.AddWithOpts(low, keys...)
		b.StartTimer()
		addedAt := make([]time.Time, floodHigh)
		handed := make(chan time.Duration)
		var stop atomic.Bool
		var processed atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range workers {
			wg.Go(func() {
				for !stop.Load() {
					item, _, shutdown := q.GetWithPriority()
					if shutdown {
						return
					}
					if rest, ok := strings.CutPrefix(item, "hi-"); ok {
						j, _ := strconv.Atoi(rest)
						handed <- time.Since(addedAt[j])
					}
					q.Done(item)
					processed.Add(1)
				}
			})
		}
		for j := range floodHigh {
			addedAt[j] = time.Now()
			q.AddWithOpts(normal, high[j])
			waits = append(waits, <-handed)
		}
		window += time.Since(start)
		stop.Store(true)
		q.ShutDown()
		wg.Wait()
		moved += processed.Load()
	}
	slices.Sort(waits)
	b.ReportMetric(float64(nearestRank(waits, 50).Nanoseconds()), "p50_wait_ns")
	b.ReportMetric(float64(nearestRank(waits, 99).Nanoseconds()), "p99_wait_ns")
	b.ReportMetric(float64(moved)/window.Seconds(), "items/s")
	b.ReportMetric(0, "ns/op")
}

// nearestRank returns the p-th percentile of sorted by the nearest-rank
// method: the smallest value with at least p% of the values at or below it
// (index ceil(p*n/100)-1; len/2 and len*99/100 are one rank too high when
// n is a multiple of 100, as with floodHigh).
func nearestRank(sorted []time.Duration, p int) time.Duration {
	return sorted[max((len(sorted)*p+99)/100-1, 0)]
}

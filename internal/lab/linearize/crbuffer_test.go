//go:build crrepro

// Reproduction of a controller-runtime v0.25.2 priority-queue finding, kept
// out of the normal run because it fails against upstream: run it with
// go test -tags crrepro -run TestControllerRuntimeAddAppliedAfterDone ./internal/lab/linearize/
package linearize_test

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// trapProvider is a workqueue.MetricsProvider whose adds counter, once
// armed, parks the first Inc made from controller-runtime's
// handleReadyItems goroutine while a Get waits: that Inc runs inside the
// add-buffer flush, after the buffer was taken and before the locked set
// is read.
type trapProvider struct {
	mu      sync.Mutex
	armed   bool
	hit     chan struct{}
	release chan struct{}
}

type nopMetric struct{}

func (nopMetric) Inc()            {}
func (nopMetric) Dec()            {}
func (nopMetric) Set(float64)     {}
func (nopMetric) Observe(float64) {}

type trapCounter struct{ p *trapProvider }

func (c trapCounter) Inc() {
	c.p.mu.Lock()
	fire := c.p.armed && inHandleReadyItems()
	if fire {
		c.p.armed = false
	}
	c.p.mu.Unlock()
	if fire {
		close(c.p.hit)
		<-c.p.release
	}
}

func inHandleReadyItems() bool {
	buf := make([]byte, 1<<14)
	return strings.Contains(string(buf[:runtime.Stack(buf, false)]), "handleReadyItems")
}

func (p *trapProvider) NewDepthMetric(string) workqueue.GaugeMetric            { return nopMetric{} }
func (p *trapProvider) NewAddsMetric(string) workqueue.CounterMetric           { return trapCounter{p} }
func (p *trapProvider) NewLatencyMetric(string) workqueue.HistogramMetric      { return nopMetric{} }
func (p *trapProvider) NewWorkDurationMetric(string) workqueue.HistogramMetric { return nopMetric{} }
func (p *trapProvider) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return nopMetric{}
}
func (p *trapProvider) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return nopMetric{}
}
func (p *trapProvider) NewRetriesMetric(string) workqueue.CounterMetric { return nopMetric{} }

// TestControllerRuntimeAddAppliedAfterDone pins the finding behind the
// priorityq/controllerruntime entry of knownViolations, deterministically:
// controller-runtime's AddWithOpts only appends to an add buffer, and
// handleReadyItems flushes that buffer before it takes lockedLock. An Add
// of a processed item that returns in that gap, followed by the worker's
// Done, lets the round hand the item's queued entry to a waiting Get while
// the Add is still buffered; the Add is applied afterwards, finds no entry
// and queues the item once more. No sequential order allows that: the Add
// returned before the Done that let the second worker take the item, so it
// had to coalesce with the queued entry. The item is handed out one extra
// time (never to two workers at once, never out of priority order). It fails
// against v0.25.2 (Len is 2: k and an extra 3).
func TestControllerRuntimeAddAppliedAfterDone(t *testing.T) {
	p := &trapProvider{hit: make(chan struct{}), release: make(chan struct{})}
	q := priorityqueue.New[int]("repro", func(o *priorityqueue.Opts[int]) { o.MetricProvider = p })
	defer q.ShutDown()

	q.Add(3)
	if it, _ := q.Get(); it != 3 {
		t.Fatalf("Get = %d, want 3", it)
	}
	q.Add(3) // while processed: 3 is queued again, behind the lock
	if n := q.Len(); n != 1 {
		t.Fatalf("Len = %d, want 1", n)
	}

	got := make(chan int, 1)
	k := 100
	for ; ; k++ {
		p.mu.Lock()
		p.armed = true
		p.mu.Unlock()
		q.Add(k) // a fresh item, so that the flush calls the adds counter
		go func() { it, _ := q.Get(); got <- it }()
		select {
		case <-p.hit:
		case it := <-got:
			// handleAddBuffer flushed k, unarmed, and the Get took k: again.
			q.Done(it)
			continue
		}
		break
	}
	// handleReadyItems is parked in its flush holding the queue's lock;
	// the buffer it flushes no longer holds what is added now.
	q.Add(3)  // 3 is queued: this add must coalesce with that entry
	q.Done(3) // the first worker is done; the queued 3 may go out now
	close(p.release)

	if b := <-got; b != 3 {
		t.Fatalf("waiting Get = %d, want 3 (queued before %d)", b, k)
	}
	q.Done(3)
	// Sequentially only k is left; controller-runtime has 3 queued again.
	if n := q.Len(); n != 1 {
		t.Errorf("Len = %d after the second worker's Done, want 1 (%d only): the Add(3) that returned before Done(3) was applied after 3 was handed out again", n, k)
	}
}

package metrics

import (
	"sync"
	"time"
)

// Gauge is a value the sampler watches for its peak (a queue depth, a
// backlog).
type Gauge func() int64

// Sampler polls the heap and a set of gauges at a fixed interval from one
// goroutine, keeping their peaks, and calls a tick function (progress
// reporting) on the same beat. Polling costs the measured pipeline nothing
// on its hot path.
type Sampler struct {
	gauges []Gauge
	tick   func()
	stop   chan struct{}
	done   chan struct{}

	mu       sync.Mutex
	heapPeak uint64
	peaks    []int64
}

// SampleInterval is how often a Sampler polls.
const SampleInterval = 10 * time.Millisecond

// StartSampler starts polling; tick may be nil.
func StartSampler(tick func(), gauges ...Gauge) *Sampler {
	s := &Sampler{
		gauges: gauges,
		tick:   tick,
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		peaks:  make([]int64, len(gauges)),
	}
	go s.run()
	return s
}

func (s *Sampler) run() {
	defer close(s.done)
	t := time.NewTicker(SampleInterval)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-t.C:
		case <-s.stop:
			s.sample()
			return
		}
	}
}

func (s *Sampler) sample() {
	heap := HeapObjects()
	s.mu.Lock()
	s.heapPeak = max(s.heapPeak, heap)
	for i, g := range s.gauges {
		s.peaks[i] = max(s.peaks[i], g())
	}
	s.mu.Unlock()
	if s.tick != nil {
		s.tick()
	}
}

// Stop ends polling and returns the peak heap (bytes of heap objects) and
// each gauge's peak, in the order given.
func (s *Sampler) Stop() (heapPeak uint64, peaks []int64) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heapPeak, append([]int64(nil), s.peaks...)
}

// Peaks are the high-water marks a Sampler sees over a load run, kept
// under the same JSON names by every kind of run (pipeline or whole
// controller) so their results read alike.
type Peaks struct {
	// PeakDepth is the largest workqueue Len() sampled; PeakPending the
	// largest number of keys with an unreconciled change.
	PeakDepth   int64 `json:"peak_depth"`
	PeakPending int64 `json:"peak_pending"`
	// PeakHeap is the sampled peak of heap object bytes above the heap
	// before the pipeline or controller was built.
	PeakHeap uint64 `json:"peak_heap_bytes"`
	// PeakRSS is the process's VmHWM over the run (0 if unavailable).
	PeakRSS uint64 `json:"peak_rss_bytes"`
}

// Throughput is a load run's measured phase: how many stream changes it
// took in, how long until all were handled, and the rate that makes.
// Every kind of run (pipeline or whole controller) reports it under the
// same JSON names; what "handled" means is the run's to say.
type Throughput struct {
	Events       int64         `json:"events"`
	Duration     time.Duration `json:"duration_ns"`
	EventsPerSec float64       `json:"events_per_sec"`
}

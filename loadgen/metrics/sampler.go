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

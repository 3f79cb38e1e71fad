package keyq

import (
	"sync"
	"sync/atomic"
)

// synced tracks HasSynced the way client-go's queues define it: true once
// either a single-key write came before any Replace ("populated" without an
// initial list), or every entry of the first Replace has been popped. The
// flag never goes back to false, and Done's channel closes when it turns
// true.
//
// The hot paths only read atomics: populated flips once, count is zero in
// steady state. The mutex orders the rare transitions.
type synced struct {
	mu        sync.Mutex
	populated atomic.Bool
	count     atomic.Int64 // entries of the first Replace still to pop
	done      atomic.Bool
	ch        chan struct{}
}

func newSynced() synced { return synced{ch: make(chan struct{})} }

// markPopulated records a single-key write (Add, Update, Delete,
// AddIfNotPresent).
func (s *synced) markPopulated() {
	if s.populated.Load() {
		return
	}
	s.mu.Lock()
	s.populated.Store(true)
	s.checkLocked()
	s.mu.Unlock()
}

// initial records the size of the first Replace; later calls do nothing.
func (s *synced) initial(n int) {
	s.mu.Lock()
	if !s.populated.Load() {
		s.populated.Store(true)
		s.count.Store(int64(n))
		s.checkLocked()
	}
	s.mu.Unlock()
}

// popped counts n popped entries against the initial list and reports
// whether any of them belonged to it (then a check is due).
func (s *synced) popped(n int) bool {
	if s.count.Load() == 0 {
		return false
	}
	s.mu.Lock()
	c := s.count.Load()
	s.count.Store(max(0, c-int64(n)))
	s.mu.Unlock()
	return c > 0
}

// check turns HasSynced true if its conditions hold.
func (s *synced) check() {
	s.mu.Lock()
	s.checkLocked()
	s.mu.Unlock()
}

func (s *synced) checkLocked() {
	if s.populated.Load() && s.count.Load() == 0 && !s.done.Load() {
		s.done.Store(true)
		close(s.ch)
	}
}

// limit caps a batch so it never spans the end of the initial list, which
// keeps isInInitialList the same for every item of the batch.
func (s *synced) limit(max int) int {
	if c := s.count.Load(); c > 0 && c < int64(max) {
		return int(c)
	}
	return max
}

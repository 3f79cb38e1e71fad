package keyq

import (
	"sync"
	"sync/atomic"
)

// synced tracks HasSynced: true once either a single-key write came before
// any Replace ("populated" without an initial list), or every queue entry
// of the first Replace has been popped. The flag never goes back to false,
// and Done's channel closes when it turns true.
//
// client-go counts pops after the first Replace; with FIFO order the first
// that-many pops are exactly the initial entries. The Set counts the initial
// entries per slot instead (Slot.initial), which is the same under FIFO
// order and stays right when shards are served out of order (a later key of
// one shard may be popped before an initial key of another).
//
// The hot paths only read atomics (populated flips once, done once); count
// and the rare transitions are under the mutex.
type synced struct {
	mu        sync.Mutex
	populated atomic.Bool
	count     int64 // initial entries still queued; under mu
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

// initial records the size of the first Replace; later calls do nothing
// unless relist says the first one's entries were dropped unpopped, in
// which case n replaces the count.
func (s *synced) initial(n int, relist bool) {
	s.mu.Lock()
	if !s.populated.Load() || relist {
		s.populated.Store(true)
		s.count = int64(n)
		s.checkLocked()
	}
	s.mu.Unlock()
}

// popped records that n initial entries left the queue.
func (s *synced) popped(n int) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	s.count = max(0, s.count-int64(n))
	s.mu.Unlock()
}

// check turns HasSynced true if its conditions hold. Once it is true it
// stays true, so the steady state (every PopBatch calls check) takes no
// lock.
func (s *synced) check() {
	if s.done.Load() {
		return
	}
	s.mu.Lock()
	s.checkLocked()
	s.mu.Unlock()
}

func (s *synced) checkLocked() {
	if s.populated.Load() && s.count == 0 && !s.done.Load() {
		s.done.Store(true)
		close(s.ch)
	}
}

package keyq

import (
	"sync"
	"sync/atomic"
)

// waiter parks consumers while nothing is queued and wakes them when a
// producer queues something or the queue closes.
//
// A consumer announces itself (waiters+1) and re-checks for work before it
// blocks; a producer queues first and then looks at waiters. Go's atomics
// are sequentially consistent, so one of the two always sees the other:
// no wake-up is lost, and a producer pays one atomic load when nobody waits.
type waiter struct {
	waiters atomic.Int32
	wake    chan struct{} // capacity 1: a pending wake-up token
	closed  atomic.Bool
	once    sync.Once
	closeCh chan struct{}
}

func newWaiter() waiter {
	return waiter{wake: make(chan struct{}, 1), closeCh: make(chan struct{})}
}

// notify wakes one parked consumer, if any.
func (w *waiter) notify() {
	if w.waiters.Load() > 0 {
		select {
		case w.wake <- struct{}{}:
		default: // a token is already pending
		}
	}
}

// park blocks until notify or close, unless available reports work (or the
// queue is closed) after the consumer has announced itself.
func (w *waiter) park(available func() bool) {
	w.waiters.Add(1)
	defer w.waiters.Add(-1)
	if available() || w.closed.Load() {
		return
	}
	select {
	case <-w.wake:
	case <-w.closeCh:
	}
}

func (w *waiter) close() {
	w.once.Do(func() {
		w.closed.Store(true)
		close(w.closeCh)
	})
}

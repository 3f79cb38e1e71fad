// Package gate parks the Gets and drains of the queues whose hot path takes
// no queue-wide lock (workq's Sharded and Ring, priorityq's Sharded and
// LockFree). Both families need the same lost-wakeup-free handshake, so it
// lives here once.
//
// A Get that finds nothing registers as parked and, under the gate's mutex,
// checks once more before it waits; a producer makes its item visible first
// and reads parked after. With sequentially consistent atomics one of the two
// sees the other, so no wakeup is lost. Whoever signals a parked Get
// unregisters it, so parked counts only Gets still waiting for a wakeup:
// producers take the mutex only when one is, not for the whole time a woken
// Get takes to be scheduled (which, measured, made nearly every Add of a busy
// pipeline lock the gate).
package gate

import (
	"sync"
	"sync/atomic"
)

// Gate is embedded by value in a queue; call Init before first use, because
// the condition variables must point at the gate's own mutex.
type Gate struct {
	mu       sync.Mutex
	getters  sync.Cond    // L is &mu
	drainers sync.Cond    // L is &mu
	parked   atomic.Int32 // Gets waiting and not yet signalled; written under mu
}

// Init ties the condition variables to the mutex; the zero Gate is not ready
// because a sync.Cond needs its Locker.
func (g *Gate) Init() {
	g.getters.L = &g.mu
	g.drainers.L = &g.mu
}

// Wake signals up to n parked Gets, after n items were made visible. It takes
// the mutex only when a Get is parked, which keeps producers lock-free in a
// busy queue.
func (g *Gate) Wake(n int) {
	if n <= 0 || g.parked.Load() == 0 {
		return
	}
	g.mu.Lock()
	for ; n > 0 && g.parked.Load() > 0; n-- {
		g.parked.Add(-1)
		g.getters.Signal()
	}
	g.mu.Unlock()
}

// WakeAll wakes every parked Get and drain, for them to look again: shutdown
// and state changes that may end several waits at once use it.
func (g *Gate) WakeAll() {
	g.mu.Lock()
	g.parked.Store(0) // the broadcast wakes every one of them
	g.getters.Broadcast()
	g.drainers.Broadcast()
	g.mu.Unlock()
}

// WakeDrainers wakes the drains only, so that they re-evaluate their
// condition after the queue (or part of it) became idle.
func (g *Gate) WakeDrainers() {
	g.mu.Lock()
	g.drainers.Broadcast()
	g.mu.Unlock()
}

// Park blocks the calling Get unless stop, evaluated under the mutex after it
// registered, says there is something to look at. The caller looks again
// afterwards, so a spurious return is harmless.
func (g *Gate) Park(stop func() bool) {
	g.mu.Lock()
	g.parked.Add(1)
	if stop() {
		g.parked.Add(-1)
	} else {
		g.getters.Wait() // whoever wakes us has unregistered us
	}
	g.mu.Unlock()
}

// WaitUntil blocks until done, evaluated under the mutex after every WakeAll
// or WakeDrainers; drains wait here.
func (g *Gate) WaitUntil(done func() bool) {
	g.mu.Lock()
	for !done() {
		g.drainers.Wait()
	}
	g.mu.Unlock()
}

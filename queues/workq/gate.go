package workq

import (
	"sync"
	"sync/atomic"
)

// gate parks the Get calls of a queue whose hot path takes no queue-wide lock
// (Sharded, Ring), and the ShutDownWithDrain calls of such a queue.
//
// A Get that finds nothing registers as parked and, under mu, checks once
// more before it waits; a producer makes its item visible first and reads
// parked after. With sequentially consistent atomics one of the two must see
// the other, so a wakeup is never lost. The producer that signals a parked
// Get also unregisters it, so parked counts only Gets still waiting for a
// wakeup: producers take mu only when one is, not for the whole time a woken
// Get takes to be scheduled (which, measured, made nearly every Add of a
// busy pipeline lock the gate).
type gate struct {
	mu       sync.Mutex
	getters  sync.Cond    // L is &mu
	drainers sync.Cond    // L is &mu
	parked   atomic.Int32 // Gets waiting and not yet signalled; written under mu
	shutdown atomic.Bool
	draining atomic.Bool
}

func (g *gate) init() {
	g.getters.L = &g.mu
	g.drainers.L = &g.mu
}

// wake is called after an item was made visible to Get.
func (g *gate) wake() {
	if g.parked.Load() > 0 {
		g.mu.Lock()
		if g.parked.Load() > 0 {
			g.parked.Add(-1)
			g.getters.Signal()
		}
		g.mu.Unlock()
	}
}

// park blocks the calling Get until an item may be available or the queue is
// shut down; available reports, without blocking, whether one is. The caller
// retries its Get afterwards, so a spurious return is harmless.
func (g *gate) park(available func() bool) {
	g.mu.Lock()
	g.parked.Add(1)
	if available() || g.shutdown.Load() {
		g.parked.Add(-1)
	} else {
		g.getters.Wait() // whoever wakes us has unregistered us
	}
	g.mu.Unlock()
}

// close marks the queue shut down and wakes every parked Get. Without drain
// it also ends every ShutDownWithDrain wait.
func (g *gate) close(drain bool) {
	g.shutdown.Store(true)
	g.draining.Store(drain)
	g.mu.Lock()
	g.parked.Store(0) // the broadcast wakes every one of them
	g.getters.Broadcast()
	if !drain {
		g.drainers.Broadcast()
	}
	g.mu.Unlock()
}

// waitDrained blocks until idle reports true or the drain is called off by
// ShutDown. idle is evaluated under mu after every notifyIdle.
func (g *gate) waitDrained(idle func() bool) {
	g.mu.Lock()
	for g.draining.Load() && !idle() {
		g.drainers.Wait()
	}
	g.mu.Unlock()
}

// notifyIdle is called after the queue (or part of it) became idle, so that a
// draining ShutDownWithDrain re-evaluates its condition.
func (g *gate) notifyIdle() {
	if g.draining.Load() {
		g.mu.Lock()
		g.drainers.Broadcast()
		g.mu.Unlock()
	}
}

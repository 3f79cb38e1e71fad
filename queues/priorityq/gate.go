package priorityq

import (
	"sync"
	"sync/atomic"
)

// gate parks the Gets and drains of a queue whose hot path takes no
// queue-wide lock (Sharded, LockFree).
//
// A Get that finds nothing registers as parked and, under mu, checks once
// more before it waits; a producer makes its item visible first and reads
// parked after. With sequentially consistent atomics one of the two sees the
// other, so no wakeup is lost. Whoever signals a parked Get unregisters it,
// so producers take mu only while a Get is really waiting.
type gate struct {
	mu       sync.Mutex
	getters  sync.Cond    // L is &mu
	drainers sync.Cond    // L is &mu
	parked   atomic.Int32 // Gets waiting and not yet signalled; written under mu
}

func (g *gate) init() {
	g.getters.L = &g.mu
	g.drainers.L = &g.mu
}

// wake signals up to n parked Gets, after n items were made visible.
func (g *gate) wake(n int) {
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

// wakeAll wakes every parked Get and drain, for them to look again.
func (g *gate) wakeAll() {
	g.mu.Lock()
	g.parked.Store(0)
	g.getters.Broadcast()
	g.drainers.Broadcast()
	g.mu.Unlock()
}

// park blocks the calling Get unless stop, evaluated under mu after it
// registered, says there is something to look at. The caller looks again
// afterwards, so a spurious return is harmless.
func (g *gate) park(stop func() bool) {
	g.mu.Lock()
	g.parked.Add(1)
	if stop() {
		g.parked.Add(-1)
	} else {
		g.getters.Wait() // whoever wakes us has unregistered us
	}
	g.mu.Unlock()
}

// waitUntil blocks until done, evaluated under mu after every wakeAll.
func (g *gate) waitUntil(done func() bool) {
	g.mu.Lock()
	for !done() {
		g.drainers.Wait()
	}
	g.mu.Unlock()
}

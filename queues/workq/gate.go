package workq

import (
	"sync/atomic"

	"github.com/queuelab/queuelab/queues/internal/gate"
)

// shutGate is the shared gate plus the shutdown and drain flags that workq's
// lock-free queues (Sharded, Ring) keep next to it: Get must see shutdown
// under the gate's mutex, or a Get parking while ShutDown runs would sleep
// forever.
type shutGate struct {
	gate.Gate
	shutdown atomic.Bool
	draining atomic.Bool
}

// park blocks the calling Get until an item may be available or the queue is
// shut down; available reports, without blocking, whether one is.
func (g *shutGate) park(available func() bool) {
	g.Park(func() bool { return available() || g.shutdown.Load() })
}

// close marks the queue shut down and wakes every parked Get and drain; a
// drain still in force re-evaluates its condition and waits on.
func (g *shutGate) close(drain bool) {
	g.shutdown.Store(true)
	g.draining.Store(drain)
	g.WakeAll()
}

// waitDrained blocks until idle reports true or the drain is called off by
// ShutDown. idle is evaluated under the gate's mutex after every notifyIdle.
func (g *shutGate) waitDrained(idle func() bool) {
	g.WaitUntil(func() bool { return !g.draining.Load() || idle() })
}

// notifyIdle is called after the queue (or part of it) became idle, so that a
// draining ShutDownWithDrain re-evaluates its condition.
func (g *shutGate) notifyIdle() {
	if g.draining.Load() {
		g.WakeDrainers()
	}
}

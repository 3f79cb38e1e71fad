package keyq

import (
	"sync"
	"sync/atomic"

	"github.com/queuelab/queuelab/internal/deque"
	"github.com/queuelab/queuelab/internal/mpmc"
)

// DefaultRingSize is the lock-free ring's capacity when the caller does not
// choose one. Steady-state traffic (a Reflector's watch events) fits easily;
// a relist burst spills into the overflow deque, which Replace fills under
// every shard lock anyway.
const DefaultRingSize = 1024

// entry is one queued key: the slot's address and, in ring mode, the queue
// epoch it was queued in, so an entry that a queue reset (a FIFO's
// Replace) has cancelled is recognised when a Pop finds it afterwards.
type entry struct {
	slot  int32
	shard int32
	epoch uint32
}

// ringOrder keeps queued entries in one global FIFO: a bounded lock-free
// ring, and behind it an unbounded mutex-guarded overflow deque.
//
// Order across both is kept by one rule: while the overflow holds anything,
// every push goes to the overflow, and pops drain the ring before the
// overflow. So an entry never overtakes one pushed before it (pushes that
// overlap in time may land either way, which is still a valid order).
type ringOrder struct {
	ring  *mpmc.Ring[entry]
	ovN   atomic.Int64
	ovMu  sync.Mutex
	ovflw deque.Deque[entry]
}

func newRingOrder(size int) (*ringOrder, error) {
	r, err := mpmc.New[entry](size)
	if err != nil {
		return nil, err
	}
	return &ringOrder{ring: r}, nil
}

func (o *ringOrder) push(e entry) {
	if o.ovN.Load() == 0 && o.ring.TryPush(e) {
		return
	}
	o.ovMu.Lock()
	o.ovflw.PushBack(e)
	o.ovN.Add(1)
	o.ovMu.Unlock()
}

func (o *ringOrder) pop() (entry, bool) {
	if e, ok := o.ring.TryPop(); ok {
		return e, true
	}
	if o.ovN.Load() == 0 {
		return entry{}, false
	}
	o.ovMu.Lock()
	defer o.ovMu.Unlock()
	e, ok := o.ovflw.PopFront()
	if ok {
		o.ovN.Add(-1)
	}
	return e, ok
}

// drain removes every entry.
func (o *ringOrder) drain() {
	for {
		if _, ok := o.pop(); !ok {
			return
		}
	}
}

func (o *ringOrder) available() bool { return o.ring.Len() > 0 || o.ovN.Load() > 0 }

package keyq

import "github.com/queuelab/queuelab/internal/mpmc"

// DefaultRingSize is the capacity of one ring of the lock-free queue when the
// caller does not choose one. Steady-state traffic (a Reflector's watch
// events) fits easily; a relist burst goes into further rings, dropped once
// drained.
const DefaultRingSize = 1024

// entry is one queued key: the slot's address and, in ring mode, the queue
// epoch it was queued in, so an entry that a queue reset (a FIFO's
// Replace) has cancelled is recognised when a Pop finds it afterwards.
type entry struct {
	slot  int32
	shard int32
	epoch uint32
}

// ringOrder keeps queued entries in one global lock-free FIFO: an
// mpmc.Queue, whose first ring is reused lap after lap and whose further
// rings take a relist's burst without a lock.
type ringOrder struct {
	q *mpmc.Queue[entry]
}

func newRingOrder(size int) (*ringOrder, error) {
	q, err := mpmc.NewQueue[entry](size)
	if err != nil {
		return nil, err
	}
	return &ringOrder{q: q}, nil
}

func (o *ringOrder) push(e entry) { o.q.Push(e) }

func (o *ringOrder) pop() (entry, bool) { return o.q.TryPop() }

// drain removes every entry.
func (o *ringOrder) drain() {
	for {
		if _, ok := o.pop(); !ok {
			return
		}
	}
}

func (o *ringOrder) available() bool { return !o.q.Empty() }

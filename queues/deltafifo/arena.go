package deltafifo

import (
	"unsafe"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/cacheline"
	"github.com/queuelab/queuelab/queues/internal/keyq"
)

// arenaBlock is how many first deltas one arena allocation serves.
const arenaBlock = 32

// arena hands out a key's first Delta from a shared block instead of one
// allocation per key. Each key gets a full slice expression (cap 1), so a
// second delta, or a consumer's append to a popped Deltas, copies instead of
// writing into a neighbour. A block is never reused — popped Deltas belong
// to the consumer — it is simply collected once all its keys' Deltas are.
// The price: a block keeps its objects reachable until then, which, popped
// in FIFO order, is about as long as the queue takes to turn over.
//
// There is one arena per shard, each written under its own shard's lock, so
// arenas are padded to whole cacheline units to keep neighbours apart.
type arena struct {
	arenaState
	_ [(cacheline.Size - unsafe.Sizeof(arenaState{})%cacheline.Size) % cacheline.Size]byte
}

// The arenas' stride is whole padding units: indexing past the one element
// fails to compile if it is not (a changed padding, or a state that is a
// whole number of units; see internal/cacheline).
var _ = [1]struct{}{}[unsafe.Sizeof(arena{})%cacheline.Size]

type arenaState struct {
	block *[arenaBlock]cache.Delta
	used  int // deltas of block handed out; an index, not a re-sliced
	// slice, so handing one out writes no pointer into the arena
}

// one returns a one-element Deltas holding d.
func (a *arena) one(d cache.Delta) cache.Deltas {
	if a.block == nil || a.used == arenaBlock {
		a.block, a.used = new([arenaBlock]cache.Delta), 0
	}
	i := a.used
	a.used++
	a.block[i] = d
	return a.block[i : i+1 : i+1]
}

// add appends d to the slot's Deltas, collapsing two consecutive deletions
// into the one that says more (a real object beats a
// DeletedFinalStateUnknown), and asks to queue the key if it had no deltas.
func (a *arena) add(sl *keyq.Slot[cache.Deltas], d cache.Delta) keyq.Effect {
	ds := sl.Acc
	n := len(ds)
	if n == 0 {
		sl.Acc = a.one(d)
		return keyq.Enqueue
	}
	if d.Type == cache.Deleted && ds[n-1].Type == cache.Deleted {
		if _, ok := ds[n-1].Object.(cache.DeletedFinalStateUnknown); ok {
			ds[n-1] = d
		}
		return 0
	}
	if n == cap(ds) && n < 4 {
		// A key with a second delta often gets a third (Added, Updated,
		// Deleted): go to four at once instead of two, then four.
		ds = append(make(cache.Deltas, 0, 4), ds...)
	}
	sl.Acc = append(ds, d)
	return 0
}

// Package mpmc provides lock-free multi-producer multi-consumer FIFOs after
// Dmitry Vyukov's bounded ring: every slot carries a sequence number that
// tells producers and consumers whose turn the slot is, so a push or pop
// costs one compare-and-swap on the shared position plus one store on the
// slot, and producers never contend with consumers on the same word.
//
// Queue is unbounded: a list of such rings, where a producer that
// finds the last one full closes it and links a new one. It never blocks:
// Push always succeeds and TryPop reports false when it finds no value.
// Parking policies belong to the caller.
package mpmc

import (
	"sync/atomic"

	"github.com/queuelab/queuelab/internal/cacheline"
)

// closed is set in a ring's tail position once no more pushes may succeed
// (a Queue segment that filled up); positions stay far below it.
const closed = uint64(1) << 63

type slot[T any] struct {
	// seq == pos: free for the producer claiming position pos.
	// seq == pos+1: holds the value for the consumer claiming pos.
	seq atomic.Uint64
	val T
}

// ring is a bounded MPMC FIFO, used as a Queue's segment (Queue sets it up
// with init; export_test.go gives the tests a standalone one). A push into a
// full ring fails, and for a Queue's segment closes it; a pop from an empty
// one fails.
//
// The padding separates the hot positions, so producers and consumers do
// not false-share.
type ring[T any] struct {
	_     [cacheline.Size]byte
	tail  atomic.Uint64 // next position to push, | closed once closed
	_     [cacheline.Size - 8]byte
	head  atomic.Uint64 // next position to pop
	_     [cacheline.Size - 8]byte
	mask  uint64
	slots []slot[T]
}

// maxCapacity bounds a ring's capacity (a Queue's segment size).
const maxCapacity = 1 << 40

// init makes r hold at least capacity values (rounded up to a power of two);
// capacity must be at least 1.
func (r *ring[T]) init(capacity int) {
	n := 1
	for n < capacity {
		n <<= 1
	}
	r.mask, r.slots = uint64(n-1), make([]slot[T], n)
	for i := range r.slots {
		r.slots[i].seq.Store(uint64(i))
	}
}

// Len returns the number of values in the ring. Under concurrent use it is a
// snapshot that may already be stale, but it never exceeds its capacity or
// goes below 0.
func (r *ring[T]) Len() int {
	for {
		tail := r.tail.Load()
		head := r.head.Load()
		if r.tail.Load() == tail { // consistent pair
			n := int64(tail&^closed - head)
			return int(max(0, min(n, int64(len(r.slots)))))
		}
	}
}

// push appends v at the position it returns, or reports false if the ring
// is full or closed; with closeIfFull, a push that finds the ring full
// closes it for good.
func (r *ring[T]) push(v T, closeIfFull bool) (uint64, bool) {
	pos := r.tail.Load()
	for {
		if pos&closed != 0 {
			return 0, false
		}
		s := &r.slots[pos&r.mask]
		seq := s.seq.Load()
		switch diff := int64(seq - pos); {
		case diff == 0:
			if r.tail.CompareAndSwap(pos, pos+1) {
				s.val = v
				s.seq.Store(pos + 1) // publish to the consumer of pos
				return pos, true
			}
			pos = r.tail.Load()
		case diff < 0: // the slot still holds the value from one lap ago
			if !closeIfFull {
				return 0, false
			}
			if r.tail.CompareAndSwap(pos, pos|closed) {
				return 0, false
			}
			pos = r.tail.Load() // it moved: look again
		default:
			pos = r.tail.Load() // another producer took pos; catch up
		}
	}
}

// pop removes and returns the oldest value, or reports false if the ring is
// empty; then it also reports whether the ring is closed and every value
// pushed into it has been popped: then none ever will be again.
func (r *ring[T]) pop() (v T, ok, drained bool) {
	pos := r.head.Load()
	for {
		s := &r.slots[pos&r.mask]
		seq := s.seq.Load()
		switch diff := int64(seq - (pos + 1)); {
		case diff == 0:
			if r.head.CompareAndSwap(pos, pos+1) {
				v = s.val
				var zero T
				s.val = zero                  // do not keep the value alive
				s.seq.Store(pos + r.mask + 1) // free the slot for the next lap
				return v, true, false
			}
			pos = r.head.Load()
		case diff < 0:
			// No value published at pos yet. If the ring is closed at pos,
			// no producer holds pos either: nothing more will come.
			return v, false, r.tail.Load() == pos|closed
		default:
			pos = r.head.Load() // another consumer took pos; catch up
		}
	}
}

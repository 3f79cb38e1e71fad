package mpmc

import (
	"fmt"
	"sync/atomic"

	"github.com/queuelab/queuelab/internal/cacheline"
)

// Queue is an unbounded MPMC FIFO: a linked list of rings ("segments").
// Producers push into the last segment; one that finds it full closes it
// (a bit in its tail position, so no later push can land there), links a
// fresh segment behind it and pushes there. Consumers pop from the first
// segment and move on to the next once it is closed and drained. So a
// backlog of any size stays lock-free, and while it fits in one segment —
// the steady state — that segment is reused lap after lap without
// allocating. Each extra segment is used for a single lap and then left to
// the garbage collector: segments are never recycled, so no producer or
// consumer still holding one can be fooled by its reuse.
//
// Order: a segment's values are all pushed before it is closed, and every
// value of the next segment after, so values come out in the order they were
// pushed, except between pushes that overlap in time, which have no order.
type Queue[T any] struct {
	_    [cacheline.Size]byte
	head atomic.Pointer[segment[T]] // the segment consumers pop from
	_    [cacheline.Size - 8]byte
	tail atomic.Pointer[segment[T]] // the segment producers push to
	_    [cacheline.Size - 8]byte
	size int // values per segment
}

type segment[T any] struct {
	ring[T]
	next atomic.Pointer[segment[T]]
	// base is the queue-wide position of the segment's first value: the
	// previous segment's base plus the values pushed into it before it
	// closed. Set before the segment is linked, never changed.
	base uint64
}

// NewQueue returns an empty queue whose segments hold at least segmentSize
// values each (rounded up to a power of two); the first is allocated now.
func NewQueue[T any](segmentSize int) (*Queue[T], error) {
	if segmentSize < 1 || segmentSize > maxCapacity {
		return nil, fmt.Errorf("mpmc: segment size must be in [1, %d], got %d", maxCapacity, segmentSize)
	}
	q := &Queue[T]{size: segmentSize}
	s := q.newSegment()
	q.head.Store(s)
	q.tail.Store(s)
	return q, nil
}

func (q *Queue[T]) newSegment() *segment[T] {
	s := new(segment[T])
	s.init(q.size)
	return s
}

// Push appends v; it never fails and never blocks. It returns v's
// queue-wide position, which Popped takes: positions count the values
// pushed before v.
func (q *Queue[T]) Push(v T) uint64 {
	for {
		s := q.tail.Load()
		if pos, ok := s.push(v, true); ok {
			return s.base + pos
		}
		// s is closed: move the tail on, linking a new segment if nobody
		// has yet (the losers of that race drop theirs).
		next := s.next.Load()
		if next == nil {
			fresh := q.newSegment()
			fresh.base = s.base + s.tail.Load()&^closed // s is closed: final
			if s.next.CompareAndSwap(nil, fresh) {
				next = fresh
			} else {
				next = s.next.Load()
			}
		}
		q.tail.CompareAndSwap(s, next)
	}
}

// TryPop removes and returns the oldest value, or reports false if the
// queue is empty (or its oldest value is still being pushed).
func (q *Queue[T]) TryPop() (v T, ok bool) {
	for {
		s := q.head.Load()
		v, ok, drained := s.pop()
		if ok || !drained {
			return v, ok
		}
		next := s.next.Load()
		if next == nil {
			return v, false // the closer has not linked the next one yet
		}
		q.head.CompareAndSwap(s, next)
	}
}

// Popped reports whether the value Push placed at position pos has been
// taken by a TryPop, or by one that has claimed it and not yet returned:
// the claim (a compare-and-swap on the head position) is the instant a
// value leaves the queue. A caller that must know whether a value is still
// queued, and reads this after it read the value's own state, so learns on
// which side of the pop it stands, with no window between the two.
func (q *Queue[T]) Popped(pos uint64) bool {
	// The head segment moves on only once every value of the one before it
	// has been claimed, and no value of a later segment is claimed before
	// it moves; so a position below this segment's base has been popped and
	// one beyond its values has not.
	return pos < q.popped()
}

// Len returns the number of values in the queue, exact at one instant
// during the call: pushes counted by their claimed position, pops by
// theirs, so a value being pushed or popped counts from or until its
// claim, as Popped does.
func (q *Queue[T]) Len() int {
	for {
		tail := q.pushed()
		head := q.popped()
		if q.pushed() == tail { // no push claimed in between: a snapshot
			return int(tail - head)
		}
	}
}

// pushed returns how many positions producers have claimed: the count at
// some instant during the call (a tail segment that is closed no longer
// changes, and no value goes into the next one before the tail moves).
func (q *Queue[T]) pushed() uint64 {
	s := q.tail.Load()
	return s.base + s.tail.Load()&^closed
}

// popped returns how many positions consumers have claimed, at some
// instant during the call (see Popped).
func (q *Queue[T]) popped() uint64 {
	s := q.head.Load()
	return s.base + s.head.Load()
}

// Empty reports whether the queue held no value at the moment it looked
// (a snapshot: under concurrent use it may already be stale). A value whose
// Push returned before the call is always seen.
func (q *Queue[T]) Empty() bool {
	for s := q.head.Load(); s != nil; s = s.next.Load() {
		if s.Len() > 0 {
			return false
		}
	}
	return true
}

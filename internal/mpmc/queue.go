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

// Push appends v; it never fails and never blocks.
func (q *Queue[T]) Push(v T) {
	for {
		s := q.tail.Load()
		if s.push(v, true) {
			return
		}
		// s is closed: move the tail on, linking a new segment if nobody
		// has yet (the losers of that race drop theirs).
		next := s.next.Load()
		if next == nil {
			fresh := q.newSegment()
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

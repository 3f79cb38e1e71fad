package mpmc

// The lab uses rings only as Queue's segments. These give the tests a
// standalone ring, so they can drive one to full and empty directly, which a
// Queue never shows.

// New returns a ring holding at least capacity (≥ 1) values, rounded up to a
// power of two.
func New[T any](capacity int) *ring[T] {
	r := new(ring[T])
	r.init(capacity)
	return r
}

// TryPush appends v and reports true, or reports false if the ring is full.
func (r *ring[T]) TryPush(v T) bool {
	_, ok := r.push(v, false)
	return ok
}

// TryPop removes and returns the oldest value, or reports false if the ring
// is empty.
func (r *ring[T]) TryPop() (v T, ok bool) {
	v, ok, _ = r.pop()
	return v, ok
}

// Cap returns the number of values the ring can hold.
func (r *ring[T]) Cap() int { return len(r.slots) }

// SegmentSize returns the number of values one segment holds.
func (q *Queue[T]) SegmentSize() int { return q.head.Load().Cap() }

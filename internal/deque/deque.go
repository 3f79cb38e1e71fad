// Package deque provides a growable ring-buffer FIFO.
//
// It replaces the `queue = queue[1:]` idiom client-go uses, which keeps popped
// items reachable from the backing array until the next reallocation and
// reallocates on every wrap. Here a popped slot is zeroed at once, the buffer
// is reused circularly, and it shrinks again after a burst so a queue that
// once held a relist's worth of keys does not pin that memory forever.
package deque

// minCap is the smallest buffer a non-empty Deque keeps; shrinking stops
// there so a queue oscillating around a few items never reallocates.
const minCap = 16

// Deque is a FIFO of T backed by a power-of-two ring buffer.
// The zero value is an empty deque ready to use. It is not safe for
// concurrent use; callers hold their own lock.
type Deque[T any] struct {
	buf  []T
	head int // index of the front element
	n    int // number of elements
}

// Len returns the number of queued elements.
func (d *Deque[T]) Len() int { return d.n }

// PushBack appends v at the back.
func (d *Deque[T]) PushBack(v T) {
	if d.n == len(d.buf) {
		d.resize(max(minCap, 2*len(d.buf)))
	}
	d.buf[(d.head+d.n)&(len(d.buf)-1)] = v
	d.n++
}

// PopFront removes and returns the front element; ok is false when empty.
func (d *Deque[T]) PopFront() (v T, ok bool) {
	if d.n == 0 {
		return v, false
	}
	var zero T
	v = d.buf[d.head]
	d.buf[d.head] = zero // let the GC have it
	d.head = (d.head + 1) & (len(d.buf) - 1)
	d.n--
	if len(d.buf) > minCap && d.n <= len(d.buf)/4 {
		d.resize(len(d.buf) / 2)
	}
	return v, true
}

// Front returns the front element without removing it.
func (d *Deque[T]) Front() (v T, ok bool) {
	if d.n == 0 {
		return v, false
	}
	return d.buf[d.head], true
}

// Reset empties the deque, keeping its buffer for reuse.
func (d *Deque[T]) Reset() {
	clear(d.buf)
	d.head, d.n = 0, 0
}

// All calls yield for each element from front to back until yield returns
// false. The deque must not be modified during iteration.
func (d *Deque[T]) All(yield func(T) bool) {
	for i := range d.n {
		if !yield(d.buf[(d.head+i)&(len(d.buf)-1)]) {
			return
		}
	}
}

func (d *Deque[T]) resize(capacity int) {
	buf := make([]T, capacity)
	if d.n > 0 {
		// Copy the (possibly wrapped) contents to the front of buf.
		end := d.head + d.n
		if end <= len(d.buf) {
			copy(buf, d.buf[d.head:end])
		} else {
			k := copy(buf, d.buf[d.head:])
			copy(buf[k:], d.buf[:end-len(d.buf)])
		}
	}
	d.buf, d.head = buf, 0
}

// Package queues holds what every queue family shares with its callers:
// ErrRequeue. The families themselves are its subpackages — workq
// (client-go's workqueue), fifo (cache.FIFO), deltafifo (cache.DeltaFIFO),
// inorder (RealFIFO), priorityq (controller-runtime's priority queue) —
// each exporting its implementations, one Options struct and typed
// constructors, with a conformance suite beside it (workqtest, fifotest,
// deltafifotest, inordertest, priorityqtest) whose Guarantees say what an
// implementation is held to.
package queues

import "errors"

// ErrRequeue may be returned by the process function of a FIFO's or a
// DeltaFIFO's Pop to put the popped item back into the queue, unless its key
// was queued again meanwhile (the producer's newer state wins). Pop then
// returns Err.
//
// client-go's queues had this once and dropped it; the lab's FIFOs and
// DeltaFIFOs keep it, and declare so to their suites (Guarantees.Ext).
type ErrRequeue struct {
	// Err is returned by Pop. It may be nil.
	Err error
}

// Error is Err's message, or a fixed one when Err is nil, so a requeue that
// escapes to a log still says what it was.
func (e ErrRequeue) Error() string {
	if e.Err == nil {
		return "the popped item shall be requeued"
	}
	return e.Err.Error()
}

// Unwrap returns Err, so errors.Is and errors.As see through the requeue
// to the cause.
func (e ErrRequeue) Unwrap() error { return e.Err }

// AsRequeue reports whether a process function's error asks for a requeue,
// and returns the ErrRequeue. A nil error — the common case — costs nothing
// (errors.As would need a heap-allocated target), which is why the queues'
// Pop calls this rather than errors.As.
func AsRequeue(err error) (ErrRequeue, bool) {
	if err == nil {
		return ErrRequeue{}, false
	}
	var rq ErrRequeue
	ok := errors.As(err, &rq)
	return rq, ok
}

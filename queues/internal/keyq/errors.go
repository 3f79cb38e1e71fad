package keyq

import "errors"

// ErrRequeue may be returned by a Pop process function to put the popped
// item back into the queue, unless its key was queued again meanwhile (the
// producer's newer state wins). Pop then returns Err.
//
// client-go's queues had this once; the lab's queues keep it.
type ErrRequeue struct {
	// Err is returned by Pop. It may be nil.
	Err error
}

func (e ErrRequeue) Error() string {
	if e.Err == nil {
		return "the popped item shall be requeued"
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e ErrRequeue) Unwrap() error { return e.Err }

// AsRequeue reports whether a process function's error asks for a requeue,
// and returns the ErrRequeue. A nil error — the common case — costs nothing
// (errors.As would need a heap-allocated target).
func AsRequeue(err error) (ErrRequeue, bool) {
	if err == nil {
		return ErrRequeue{}, false
	}
	return asRequeue(err)
}

func asRequeue(err error) (ErrRequeue, bool) {
	var rq ErrRequeue
	ok := errors.As(err, &rq)
	return rq, ok
}

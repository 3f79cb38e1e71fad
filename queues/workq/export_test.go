package workq

// Refresh runs one refresh of the unfinished-work gauges now, as a tick of
// the refresher would: tests call it after a shutdown to play a tick that
// lands between the shutdown and the refresher's halt.
func (q *Mutex[T]) Refresh() { q.refresh() }

// Refresh runs one refresh of the unfinished-work gauges now (see
// Mutex.Refresh).
func (q *Sharded[T]) Refresh() { q.refresh() }

// Refresh runs one refresh of the unfinished-work gauges now (see
// Mutex.Refresh).
func (q *Ring[T]) Refresh() { q.metrics.refresh() }

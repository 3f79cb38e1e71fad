package suite

// Worker is a controller's worker with nothing to do: it takes every item q
// hands out and finishes it at once, until Get reports shutdown. Tests
// about the queue itself — its metrics, its idle cost — run it on their
// worker goroutines, so that they read as the queue's use, not a worker's.
func Worker[T any](q interface {
	Get() (T, bool)
	Done(T)
}) {
	for {
		item, shutdown := q.Get()
		if shutdown {
			return
		}
		q.Done(item)
	}
}

package informer

import "k8s.io/client-go/tools/cache"

// batchingQueue is the FIFO as the informer hands it to cache.New: every
// Pop is a PopBatch to the informer's ProcessBatch. cache.New's
// controller pops batches only from a cache.QueueWithBatch and only while
// client-go's InOrderInformersBatchProcess feature gate is on; hiding
// PopBatch behind Pop keeps the informer's consumer the same whatever the
// gate says, as the FIFO is whatever Options.FIFO names. The Reflector's
// optional store interfaces pass through, and a method the FIFO lacks
// does what the Reflector does when the interface is missing.
type batchingQueue struct {
	cache.Queue
	batch   cache.QueueWithBatch
	process cache.ProcessBatchFunc
}

// Pop pops a batch: process gets runs of plain deltas, single whatever
// the FIFO hands over alone (a relist, a resync). The controller ignores
// the object Pop returns.
func (q *batchingQueue) Pop(single cache.PopProcessFunc) (any, error) {
	return nil, q.batch.PopBatch(q.process, single)
}

// Transformer is the FIFO's (the Reflector's watch-list path applies it).
func (q *batchingQueue) Transformer() cache.TransformFunc {
	if t, ok := q.Queue.(cache.TransformingStore); ok {
		return t.Transformer()
	}
	return nil
}

// Bookmark passes a watch bookmark's resource version to the FIFO.
func (q *batchingQueue) Bookmark(rv string) error {
	if b, ok := q.Queue.(cache.ReflectorBookmarkStore); ok {
		return b.Bookmark(rv)
	}
	return nil
}

// UpdateResourceVersion passes the watch's resource version to the FIFO.
func (q *batchingQueue) UpdateResourceVersion(rv string) {
	if u, ok := q.Queue.(cache.ResourceVersionUpdater); ok {
		u.UpdateResourceVersion(rv)
	}
}

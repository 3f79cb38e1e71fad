package inorder

import (
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/deque"
)

// Mutex is an in-order FIFO under one mutex, in either mode: client-go's
// RealFIFO design with the per-event costs taken out (no key string per
// event, no set of key strings per batch, a reused ring instead of a
// re-sliced slice, one lock round trip per Pop).
type Mutex struct {
	core
	mu     sync.Mutex
	cond   sync.Cond
	items  deque.Deque[cache.Delta]
	closed bool
}

var _ Queue = (*Mutex)(nil)

// NewMutex returns an empty Mutex queue configured by opts.
func NewMutex(opts Options) (*Mutex, error) {
	s, err := opts.settings()
	if err != nil {
		return nil, err
	}
	q := &Mutex{}
	q.init(q, s, "inorder.Mutex")
	q.cond.L = &q.mu
	return q, nil
}

func (q *Mutex) write(t cache.DeltaType, obj any) error {
	d, err := q.event(t, obj)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync.populate(0) // a write before any Replace: synced at once, as in client-go
	if err != nil {
		return err
	}
	q.push(d)
	return nil
}

// push queues d; q.mu is held.
func (q *Mutex) push(d cache.Delta) {
	q.items.PushBack(d)
	q.cond.Broadcast()
}

// Bookmark queues a Bookmark event carrying rv, unless bookmarks are off.
func (q *Mutex) Bookmark(rv string) error {
	if !q.s.bookmarks {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.push(cache.Delta{Type: cache.Bookmark, Object: cache.BookmarkInfo{ResourceVersion: rv}})
	return nil
}

// Replace queues a relist: one ReplacedAll event in atomic mode, the
// reconciled per-object events otherwise. On error nothing is queued.
func (q *Mutex) Replace(list []any, rv string) error {
	if !q.s.perObject {
		d, err := q.replacedAll(list, rv)
		if err != nil {
			return err
		}
		q.mu.Lock()
		defer q.mu.Unlock()
		q.push(d)
		q.sync.populate(q.items.Len())
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	events, err := q.reconcile(list)
	if err != nil {
		return err
	}
	for _, d := range events {
		q.push(d)
	}
	q.sync.populate(q.items.Len())
	return nil
}

// Resync queues one SyncAll event in atomic mode; in per-object mode a Sync
// event for every known object whose key has nothing queued.
func (q *Mutex) Resync() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.s.perObject {
		q.push(cache.Delta{Type: cache.SyncAll, Object: cache.SyncAllInfo{}})
		return nil
	}
	events, err := q.resyncEvents()
	if err != nil {
		return err
	}
	for _, d := range events {
		q.push(d)
	}
	return nil
}

// Close wakes every blocked Pop; events still queued are handed out first.
func (q *Mutex) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

func (q *Mutex) pop(batch cache.ProcessBatchFunc, single cache.PopProcessFunc) (any, error) {
	q.mu.Lock()
	for q.items.Len() == 0 {
		if q.closed {
			q.mu.Unlock()
			return nil, cache.ErrFIFOClosed
		}
		q.cond.Wait()
	}
	initial := !q.sync.synced.Load()
	run := q.take(mutexSource{q}, batch != nil)
	k := q.sync.taken(len(run))
	if q.s.unlocked {
		q.mu.Unlock()
		return deliver(run, initial, k, batch, single, &q.sync)
	}
	defer q.mu.Unlock()
	return deliver(run, initial, k, batch, single, &q.sync)
}

// mutexSource is the ring as take sees it; q.mu is held.
type mutexSource struct{ q *Mutex }

func (s mutexSource) peek() (cache.Delta, bool) { return s.q.items.Front() }
func (s mutexSource) drop()                     { s.q.items.PopFront() }

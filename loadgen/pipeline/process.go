package pipeline

import (
	"errors"
	"fmt"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"
)

// handler receives the informer's notifications, as a
// cache.ResourceEventHandler would (initial-list flags are not needed here).
type handler interface {
	added(obj any)
	updated(old, obj any)
	deleted(obj any)
}

// consumer applies popped deltas to the store and notifies the handler with
// the semantics of client-go's processDeltas / processDeltasInBatch (the
// informer's Process and ProcessBatch functions, which are not exported).
type consumer struct {
	store cache.Indexer
	h     handler
	// Reused by processBatch; a consumer runs on one goroutine.
	txns  []cache.Transaction
	notes []note
}

// note is a notification owed once a batch's transaction is applied.
type note struct {
	typ      cache.DeltaType
	old, obj any
}

var errNotDeltas = errors.New("pipeline: popped object is not cache.Deltas")

// process is the cache.PopProcessFunc.
func (c *consumer) process(obj any, _ bool) error {
	deltas, ok := obj.(cache.Deltas)
	if !ok {
		return errNotDeltas
	}
	for _, d := range deltas {
		if err := c.apply(d); err != nil {
			return err
		}
	}
	return nil
}

// apply writes one delta: an add or update becomes Update if the key is
// stored (OnUpdate with the old object) and Add otherwise (OnAdd); a delete
// — tombstones included — deletes and notifies OnDelete.
func (c *consumer) apply(d cache.Delta) error {
	switch d.Type {
	case cache.Sync, cache.Replaced, cache.Added, cache.Updated:
		if old, exists, err := c.store.Get(d.Object); err == nil && exists {
			if err := c.store.Update(d.Object); err != nil {
				return err
			}
			c.h.updated(old, d.Object)
			return nil
		}
		if err := c.store.Add(d.Object); err != nil {
			return err
		}
		c.h.added(d.Object)
	case cache.Deleted:
		if err := c.store.Delete(d.Object); err != nil {
			return err
		}
		c.h.deleted(d.Object)
	case cache.Bookmark:
		info, ok := d.Object.(cache.BookmarkInfo)
		if !ok {
			return fmt.Errorf("pipeline: bookmark delta without BookmarkInfo: %T", d.Object)
		}
		c.store.Bookmark(info.ResourceVersion)
	default:
		return fmt.Errorf("pipeline: unsupported delta type %q", d.Type)
	}
	return nil
}

// processBatch is the cache.ProcessBatchFunc: with a transactional store the
// whole batch is written in one transaction and the notifications follow
// (only for the operations that succeeded); otherwise delta by delta.
func (c *consumer) processBatch(deltas []cache.Delta, _ bool) error {
	tx, ok := c.store.(cache.TransactionStore)
	if !ok {
		var errs []error
		for _, d := range deltas {
			if err := c.apply(d); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	c.txns, c.notes = c.txns[:0], c.notes[:0]
	for _, d := range deltas {
		switch d.Type {
		case cache.Sync, cache.Replaced, cache.Added, cache.Updated:
			if old, exists, err := c.store.Get(d.Object); err == nil && exists {
				c.txns = append(c.txns, cache.Transaction{Type: cache.TransactionTypeUpdate, Object: d.Object})
				c.notes = append(c.notes, note{typ: cache.Updated, old: old, obj: d.Object})
			} else {
				c.txns = append(c.txns, cache.Transaction{Type: cache.TransactionTypeAdd, Object: d.Object})
				c.notes = append(c.notes, note{typ: cache.Added, obj: d.Object})
			}
		case cache.Deleted:
			c.txns = append(c.txns, cache.Transaction{Type: cache.TransactionTypeDelete, Object: d.Object})
			c.notes = append(c.notes, note{typ: cache.Deleted, obj: d.Object})
		default:
			return fmt.Errorf("pipeline: delta type %q is not supported in batch processing", d.Type)
		}
	}
	if err := tx.Transaction(c.txns...); err != nil {
		for _, i := range err.SuccessfulIndices {
			c.notify(c.notes[i])
		}
		return fmt.Errorf("pipeline: batch partly applied: %w", err)
	}
	for _, n := range c.notes {
		c.notify(n)
	}
	// Drop object references until the next batch.
	clear(c.txns)
	clear(c.notes)
	return nil
}

func (c *consumer) notify(n note) {
	switch n.typ {
	case cache.Added:
		c.h.added(n.obj)
	case cache.Updated:
		c.h.updated(n.old, n.obj)
	case cache.Deleted:
		c.h.deleted(n.obj)
	}
}

// run pops until the queue is closed, in batches when asked to and the
// queue supports it (the feature gate client-go's controller consults is
// replaced by an explicit knob). Processing errors are counted in errs;
// like client-go's controller, it carries on.
func (c *consumer) run(q cache.Queue, batch bool, errs *atomic.Int64) {
	bq, canBatch := q.(cache.QueueWithBatch)
	for {
		var err error
		if batch && canBatch {
			err = bq.PopBatch(c.processBatch, c.process)
		} else {
			_, err = q.Pop(c.process)
		}
		switch {
		case errors.Is(err, cache.ErrFIFOClosed):
			return
		case err != nil:
			errs.Add(1)
		}
	}
}

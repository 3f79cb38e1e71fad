// Package consumer is an informer's consumer side: what client-go's
// controller does with every Pop of its DeltaFIFO (the unexported
// processDeltas and processDeltasInBatch of tools/cache), written once for
// the load generator's pipelines and the lab's end-to-end benchmarks.
package consumer

import (
	"errors"
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// Consumer applies popped deltas to a store and notifies a handler, with the
// semantics of client-go's processDeltas: an Added, Updated, Sync or
// Replaced delta becomes an Update (OnUpdate with the old object) when the
// key is stored and an Add (OnAdd) otherwise; a Deleted delta, tombstones
// included, deletes and notifies OnDelete. A Consumer runs on one goroutine,
// as an informer's processLoop does.
type Consumer struct {
	store cache.Indexer
	h     cache.ResourceEventHandler
	// Reused by ProcessBatch from one batch to the next.
	txns  []cache.Transaction
	notes []note
}

// note is a notification owed once a batch's transaction is applied.
type note struct {
	typ      cache.DeltaType
	old, obj any
}

// New returns a Consumer writing to store and notifying h.
func New(store cache.Indexer, h cache.ResourceEventHandler) *Consumer {
	return &Consumer{store: store, h: h}
}

// errNotDeltas: a DeltaFIFO's Pop hands its process function cache.Deltas.
var errNotDeltas = errors.New("consumer: popped object is not cache.Deltas")

// Process is the cache.PopProcessFunc: the deltas of one key, oldest first.
func (c *Consumer) Process(obj any, isInInitialList bool) error {
	deltas, ok := obj.(cache.Deltas)
	if !ok {
		return errNotDeltas
	}
	for _, d := range deltas {
		if err := c.apply(d, isInInitialList); err != nil {
			return err
		}
	}
	return nil
}

func (c *Consumer) apply(d cache.Delta, isInInitialList bool) error {
	switch d.Type {
	case cache.Sync, cache.Replaced, cache.Added, cache.Updated:
		if old, exists, err := c.store.Get(d.Object); err == nil && exists {
			if err := c.store.Update(d.Object); err != nil {
				return err
			}
			c.h.OnUpdate(old, d.Object)
			return nil
		}
		if err := c.store.Add(d.Object); err != nil {
			return err
		}
		c.h.OnAdd(d.Object, isInInitialList)
	case cache.Deleted:
		if err := c.store.Delete(d.Object); err != nil {
			return err
		}
		c.h.OnDelete(d.Object)
	case cache.Bookmark:
		info, ok := d.Object.(cache.BookmarkInfo)
		if !ok {
			return fmt.Errorf("consumer: bookmark delta without BookmarkInfo: %T", d.Object)
		}
		c.store.Bookmark(info.ResourceVersion)
	default:
		return fmt.Errorf("consumer: unsupported delta type %q", d.Type)
	}
	return nil
}

// ProcessBatch is the cache.ProcessBatchFunc: with a cache.TransactionStore
// the whole batch (one delta per key, as PopBatch guarantees) is written in
// one Transaction and the notifications follow, for the operations that
// succeeded; otherwise it is applied delta by delta.
func (c *Consumer) ProcessBatch(deltas []cache.Delta, isInInitialList bool) error {
	tx, ok := c.store.(cache.TransactionStore)
	if !ok {
		var errs []error
		for _, d := range deltas {
			if err := c.apply(d, isInInitialList); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	c.txns, c.notes = c.txns[:0], c.notes[:0]
	// Drop object references until the next batch.
	defer func() { clear(c.txns); clear(c.notes) }()
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
			return fmt.Errorf("consumer: delta type %q is not supported in batch processing", d.Type)
		}
	}
	if err := tx.Transaction(c.txns...); err != nil {
		for _, i := range err.SuccessfulIndices {
			c.notify(c.notes[i], isInInitialList)
		}
		return fmt.Errorf("consumer: batch partly applied: %w", err)
	}
	for _, n := range c.notes {
		c.notify(n, isInInitialList)
	}
	return nil
}

func (c *Consumer) notify(n note, isInInitialList bool) {
	switch n.typ {
	case cache.Added:
		c.h.OnAdd(n.obj, isInInitialList)
	case cache.Updated:
		c.h.OnUpdate(n.old, n.obj)
	case cache.Deleted:
		c.h.OnDelete(n.obj)
	}
}

// Run pops q until it is closed, in batches when batch is set and q is a
// cache.QueueWithBatch (the explicit stand-in for the feature gate
// client-go's controller consults). Like client-go's controller it carries
// on after a processing error, handing it to onError.
func (c *Consumer) Run(q cache.Queue, batch bool, onError func(error)) {
	bq, canBatch := q.(cache.QueueWithBatch)
	for {
		var err error
		if batch && canBatch {
			err = bq.PopBatch(c.ProcessBatch, c.Process)
		} else {
			_, err = q.Pop(c.Process)
		}
		switch {
		case errors.Is(err, cache.ErrFIFOClosed):
			return
		case err != nil:
			onError(err)
		}
	}
}

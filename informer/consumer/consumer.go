// Package consumer is an informer's consumer side: what client-go's
// controller does with every Pop of its queue (the unexported
// processDeltas, processDeltasInBatch and processReplacedAllInfo of
// tools/cache), written once for the drop-in informer (package informer),
// which every lab measurement of an informer runs, and for informers
// assembled from queuelab parts.
//
// It serves both queue families an informer can pop from: a DeltaFIFO
// (queues/deltafifo, client-go's DeltaFIFO), whose Pop hands over one key's
// Deltas, and an in-order FIFO (queues/inorder, client-go's RealFIFO), whose
// events include a whole relist (ReplacedAll), a resync (SyncAll) and
// bookmarks.
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
//
// A ReplacedAll event (a relist, from an in-order FIFO in atomic mode) is
// applied as client-go's processReplacedAllInfo does: the store's content
// becomes the list in one Replace, and the handler then hears OnDelete for
// every stored key the list lacks (a DeletedFinalStateUnknown carrying the
// stored object), then OnAdd or OnUpdate for each listed object in list
// order. A SyncAll event notifies OnUpdate(obj, obj) for every stored object.
type Consumer struct {
	store cache.Store
	// tx is store as a cache.TransactionStore, nil when it is not one:
	// asserted once here rather than on every batch.
	tx      cache.TransactionStore
	h       cache.ResourceEventHandler
	keyFunc cache.KeyFunc
	// Reused by ProcessBatch from one batch to the next.
	txns  []cache.Transaction
	notes []note
}

// Options configures a Consumer.
type Options struct {
	// Store receives the events: an informer's Indexer, or any store; when
	// it is a cache.TransactionStore (stores.Indexer is), ProcessBatch
	// writes each batch in one Transaction. Required.
	Store cache.Store
	// Handler is notified after the store is written; nil notifies nobody
	// (a consumer that only maintains a cache).
	Handler cache.ResourceEventHandler
	// KeyFunc keys the objects of a ReplacedAll event to tell which stored
	// keys the relist no longer has. It must key objects as Store does.
	// Nil selects cache.DeletionHandlingMetaNamespaceKeyFunc, the key
	// function of client-go's informers and their Indexer.
	KeyFunc cache.KeyFunc
}

// errNoStore: a consumer without a store has nowhere to apply events.
var errNoStore = errors.New("consumer: Options.Store is required")

// New returns a Consumer configured by opts, or an error when
// opts has no Store.
func New(opts Options) (*Consumer, error) {
	if opts.Store == nil {
		return nil, errNoStore
	}
	if opts.Handler == nil {
		opts.Handler = cache.ResourceEventHandlerFuncs{}
	}
	if opts.KeyFunc == nil {
		opts.KeyFunc = cache.DeletionHandlingMetaNamespaceKeyFunc
	}
	tx, _ := opts.Store.(cache.TransactionStore)
	return &Consumer{store: opts.Store, tx: tx, h: opts.Handler, keyFunc: opts.KeyFunc}, nil
}

// note is a notification owed once a batch's transaction is applied.
type note struct {
	typ      cache.DeltaType
	old, obj any
}

// errNotDeltas: every queue's Pop hands its process function cache.Deltas.
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
	case cache.ReplacedAll:
		info, ok := d.Object.(cache.ReplacedAllInfo)
		if !ok {
			return fmt.Errorf("consumer: ReplacedAll delta without ReplacedAllInfo: %T", d.Object)
		}
		return c.replaceAll(info, isInInitialList)
	case cache.SyncAll:
		if _, ok := d.Object.(cache.SyncAllInfo); !ok {
			return fmt.Errorf("consumer: SyncAll delta without SyncAllInfo: %T", d.Object)
		}
		for _, obj := range c.store.List() {
			c.h.OnUpdate(obj, obj)
		}
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
	if c.tx == nil {
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
	if err := c.tx.Transaction(c.txns...); err != nil {
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

// replaceAll applies a relist: the store becomes info.Objects in one
// Replace (so a lister never sees half a relist), then the handler hears
// the deletions, then the adds and updates in list order. A key error
// leaves the store untouched and notifies nobody.
func (c *Consumer) replaceAll(info cache.ReplacedAllInfo, isInInitialList bool) error {
	keys := make([]string, len(info.Objects))
	for i, obj := range info.Objects {
		k, err := c.keyFunc(obj)
		if err != nil {
			return cache.KeyError{Obj: obj, Err: err}
		}
		keys[i] = k
	}
	// An empty store (an informer's initial list) has no key to delete and
	// no old object: the set of listed keys and the lookups below are the
	// relist's alone, and the initial sync of a large list skips them.
	stored := c.store.ListKeys()
	var deleted []cache.DeletedFinalStateUnknown
	var olds []prior
	if len(stored) > 0 {
		deleted, olds = c.priors(keys, stored)
	}
	if err := c.store.Replace(info.Objects, info.ResourceVersion); err != nil {
		return err
	}
	for _, tomb := range deleted {
		c.h.OnDelete(tomb)
	}
	for i, obj := range info.Objects {
		if olds != nil && olds[i].exists {
			c.h.OnUpdate(olds[i].obj, obj)
		} else {
			c.h.OnAdd(obj, isInInitialList)
		}
	}
	return nil
}

// prior is the stored object of a listed key, looked up before a Replace.
type prior struct {
	obj    any
	exists bool
}

// priors returns what a relist of keys does to a store holding stored
// before its Replace: a tombstone for each stored key not listed, and the
// old object of each listed key.
func (c *Consumer) priors(keys, stored []string) ([]cache.DeletedFinalStateUnknown, []prior) {
	listed := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		listed[k] = struct{}{}
	}
	var deleted []cache.DeletedFinalStateUnknown
	for _, k := range stored {
		if _, ok := listed[k]; ok {
			continue
		}
		// A lookup failure or a vanished key still gets its tombstone,
		// without an object, as client-go places it.
		obj, exists, err := c.store.GetByKey(k)
		if err != nil || !exists {
			obj = nil
		}
		deleted = append(deleted, cache.DeletedFinalStateUnknown{Key: k, Obj: obj})
	}
	olds := make([]prior, len(keys))
	for i, k := range keys {
		if old, exists, err := c.store.GetByKey(k); err == nil && exists {
			olds[i] = prior{old, true}
		}
	}
	return deleted, olds
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
	// Method values bound once: taken inside the loop, each would allocate
	// a closure per pop.
	processBatch, process := c.ProcessBatch, c.Process
	for {
		var err error
		if batch && canBatch {
			err = bq.PopBatch(processBatch, process)
		} else {
			_, err = q.Pop(process)
		}
		switch {
		case errors.Is(err, cache.ErrFIFOClosed):
			return
		case err != nil:
			onError(err)
		}
	}
}

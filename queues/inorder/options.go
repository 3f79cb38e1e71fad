package inorder

import (
	"errors"
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// DefaultBatchSize is client-go's RealFIFO batch size: the most events one
// PopBatch hands over.
const DefaultBatchSize = 1000

// Options configures an in-order FIFO. The zero value is the queue informers
// build: atomic events, bookmarks kept, processing with the queue unlocked.
type Options struct {
	// KeyFunction keys objects (to reject those without a key, to keep a
	// batch's keys distinct, and in per-object mode to reconcile a relist).
	// Nil selects cache.MetaNamespaceKeyFunc, as informers use.
	KeyFunction cache.KeyFunc
	// Transformer is applied once to every object entering the queue (not
	// to tombstones or Sync events, whose objects came from the store).
	// It runs outside the queue's lock, so concurrent writers may call it
	// concurrently (client-go calls it under its lock); an informer has one
	// writer, its Reflector.
	Transformer cache.TransformFunc
	// KnownObjects selects per-object mode (client-go's non-atomic mode):
	// Replace and Resync compare the list with these keys, usually the
	// consumer's store, and emit one event per object.
	KnownObjects cache.KeyListerGetter
	// LockWhileProcessing runs Pop's and PopBatch's process function with
	// writers excluded (client-go's UnlockWhileProcessing=false). Per-object
	// mode always does; in atomic mode it is only for consumers that need
	// it.
	LockWhileProcessing bool
	// NoBookmarks makes Bookmark a no-op (client-go's
	// EmitDeltaTypeBookmark=false). Per-object mode never emits bookmarks:
	// one would overtake the per-object events of a relist.
	NoBookmarks bool
	// BatchSize caps the events of one PopBatch; 0 selects
	// DefaultBatchSize.
	BatchSize int
}

// ErrUnsupportedMode is returned by a variant asked for a mode it does not
// implement.
var ErrUnsupportedMode = errors.New("inorder: mode not supported by this variant")

// settings is Options checked and defaulted.
type settings struct {
	Options
	perObject bool
	bookmarks bool
	unlocked  bool
}

func (o Options) settings() (settings, error) {
	if o.BatchSize < 0 {
		return settings{}, fmt.Errorf("inorder: BatchSize must be >= 0, got %d", o.BatchSize)
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.KeyFunction == nil {
		o.KeyFunction = cache.MetaNamespaceKeyFunc
	}
	perObject := o.KnownObjects != nil
	return settings{
		Options:   o,
		perObject: perObject,
		bookmarks: !perObject && !o.NoBookmarks,
		unlocked:  !perObject && !o.LockWhileProcessing,
	}, nil
}

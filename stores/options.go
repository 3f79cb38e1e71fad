package stores

import (
	"fmt"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/shard"
)

// Options configures every store of this package, so that switching a
// controller from one store to another (NewMutex, NewSharded, NewLockFree,
// NewSnapshot) changes the constructor's name and nothing else. The zero
// value is valid for each: no indexers, the default shard count, errors
// logged. A field a constructor does not take (Shards, except for
// NewSharded) must be zero; the constructor returns an error otherwise, so
// a setting is never silently ignored.
type Options struct {
	// Indexers are the store's initial index functions (copied); more can
	// be added with AddIndexers.
	Indexers cache.Indexers
	// Shards is the shard count of a Sharded store: 0 selects four per
	// GOMAXPROCS, others are rounded up to a power of two (at most 65536).
	// Only NewSharded takes it.
	Shards int
	// ErrorHandler receives the errors of the cache.ThreadSafeStore write
	// methods, which have no error result (Add, Update, Replace,
	// Transaction): an *IndexError when an IndexFunc fails. nil selects
	// utilruntime.HandleError, which logs them. The ...Checked methods
	// return their errors instead and never call the handler.
	ErrorHandler func(error)
	// EmptyOnlyIndexers restores the rule of older client-go releases:
	// AddIndexers on a store that already holds items fails with
	// ErrLateIndexers instead of indexing the existing items.
	EmptyOnlyIndexers bool
}

// options is what a store keeps of its Options.
type options struct {
	onError           func(error)
	emptyOnlyIndexers bool
}

// check returns the shard count (for a constructor that shards) and the
// options to keep, or an error naming a field out of range or one the
// constructor does not take.
func (o Options) check(constructor string, sharded bool) (int, options, error) {
	kept := options{onError: o.ErrorHandler, emptyOnlyIndexers: o.EmptyOnlyIndexers}
	if kept.onError == nil {
		kept.onError = utilruntime.HandleError
	}
	if !sharded {
		if o.Shards != 0 {
			return 0, options{}, fmt.Errorf("stores: %s: Shards is %d, but only a Sharded store has shards", constructor, o.Shards)
		}
		return 1, kept, nil
	}
	n, err := shard.Validate(o.Shards)
	if err != nil {
		return 0, options{}, fmt.Errorf("stores: %s: Shards: %w", constructor, err)
	}
	return n, kept, nil
}

// report hands a write's error (an IndexFunc failure, a failed Replace) to
// the error handler; nil reports nothing.
func (o *options) report(err error) {
	if err != nil {
		o.onError(err)
	}
}

// reportTxn is report for what TransactionChecked returns: a nil
// *cache.TransactionError must report nothing, and as an error it would
// not be nil.
func (o *options) reportTxn(terr *cache.TransactionError) {
	if terr != nil {
		o.onError(terr)
	}
}

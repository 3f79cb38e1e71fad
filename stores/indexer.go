package stores

import (
	"errors"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// Indexer adapts a ThreadSafeStore to client-go's cache.Indexer (and
// cache.TransactionStore) with a key function, as cache.NewIndexer does for
// client-go's own store: it is what an informer's processDeltas writes to and
// listers read from.
//
// With a store of this package, an IndexFunc error comes back from Add,
// Update, Replace and Transaction instead of panicking. Any other
// cache.ThreadSafeStore (client-go's included) is used through its
// interface alone.
type Indexer struct {
	keyFunc cache.KeyFunc
	store   cache.ThreadSafeStore
	checked Store // store, when it is one of ours
}

var (
	_ cache.Indexer          = (*Indexer)(nil)
	_ cache.TransactionStore = (*Indexer)(nil)
)

// NewIndexer returns an Indexer keying objects with keyFunc (usually
// cache.DeletionHandlingMetaNamespaceKeyFunc or cache.MetaNamespaceKeyFunc)
// over store.
func NewIndexer(keyFunc cache.KeyFunc, store cache.ThreadSafeStore) *Indexer {
	checked, _ := store.(Store)
	return &Indexer{keyFunc: keyFunc, store: store, checked: checked}
}

func (x *Indexer) key(obj any) (string, error) {
	key, err := x.keyFunc(obj)
	if err != nil {
		return "", cache.KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// Add stores obj under its key.
func (x *Indexer) Add(obj any) error { return x.Update(obj) }

// Update stores obj under its key, replacing what was there.
func (x *Indexer) Update(obj any) error {
	key, err := x.key(obj)
	if err != nil {
		return err
	}
	if x.checked != nil {
		return x.checked.UpdateChecked(key, obj)
	}
	x.store.Update(key, obj)
	return nil
}

// Delete removes obj's key, moving the resource version to obj's.
func (x *Indexer) Delete(obj any) error {
	key, err := x.key(obj)
	if err != nil {
		return err
	}
	x.store.DeleteWithObject(key, obj)
	return nil
}

// List returns every stored object.
func (x *Indexer) List() []any { return x.store.List() }

// ListKeys returns every stored key.
func (x *Indexer) ListKeys() []string { return x.store.ListKeys() }

// Get returns the object stored under obj's key.
func (x *Indexer) Get(obj any) (any, bool, error) {
	key, err := x.key(obj)
	if err != nil {
		return nil, false, err
	}
	return x.GetByKey(key)
}

// GetByKey returns the object stored under key.
func (x *Indexer) GetByKey(key string) (any, bool, error) {
	item, exists := x.store.Get(key)
	return item, exists, nil
}

// Replace swaps the content for list; a key-function error (or, with a
// store of ours, an IndexFunc error) changes nothing.
func (x *Indexer) Replace(list []any, resourceVersion string) error {
	items := make(map[string]any, len(list))
	for _, obj := range list {
		key, err := x.key(obj)
		if err != nil {
			return err
		}
		items[key] = obj
	}
	if x.checked != nil {
		return x.checked.ReplaceChecked(items, resourceVersion)
	}
	x.store.Replace(items, resourceVersion)
	return nil
}

// Resync is a no-op, as in client-go.
func (x *Indexer) Resync() error { return nil }

// Index returns the objects sharing at least one indexName value with obj.
func (x *Indexer) Index(indexName string, obj any) ([]any, error) {
	return x.store.Index(indexName, obj)
}

// IndexKeys returns the keys whose indexName values include indexedValue.
func (x *Indexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return x.store.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues returns the values of indexName with an object.
func (x *Indexer) ListIndexFuncValues(indexName string) []string {
	return x.store.ListIndexFuncValues(indexName)
}

// ByIndex returns the objects whose indexName values include indexedValue.
func (x *Indexer) ByIndex(indexName, indexedValue string) ([]any, error) {
	return x.store.ByIndex(indexName, indexedValue)
}

// GetIndexers returns the registered indexers.
func (x *Indexer) GetIndexers() cache.Indexers { return x.store.GetIndexers() }

// AddIndexers registers more indexers, indexing the existing items.
func (x *Indexer) AddIndexers(newIndexers cache.Indexers) error {
	return x.store.AddIndexers(newIndexers)
}

// Bookmark records rv as the latest resource version seen.
func (x *Indexer) Bookmark(rv string) { x.store.Bookmark(rv) }

// LastStoreSyncResourceVersion returns the latest resource version seen.
func (x *Indexer) LastStoreSyncResourceVersion() string {
	return x.store.LastStoreSyncResourceVersion()
}

// errNoTransactions mirrors client-go for stores without transactions.
var errNoTransactions = errors.New("transaction not supported")

// Transaction applies txns in one write section of the store. Objects
// whose key cannot be computed (and, with a store of ours, objects whose
// IndexFunc fails) are skipped; the *cache.TransactionError lists them and
// the indices of the transactions that were applied, as client-go's does.
func (x *Indexer) Transaction(txns ...cache.Transaction) *cache.TransactionError {
	ts, ok := x.store.(cache.ThreadSafeStoreWithTransaction)
	if !ok {
		return &cache.TransactionError{TotalTransactions: len(txns), Errors: []error{errNoTransactions}}
	}
	keyed := make([]cache.ThreadSafeStoreTransaction, 0, len(txns))
	applied := make([]int, 0, len(txns)) // applied[i]: index in txns of keyed[i]
	var errs []error
	for i, txn := range txns {
		key, err := x.key(txn.Object)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		keyed = append(keyed, cache.ThreadSafeStoreTransaction{Transaction: txn, Key: key})
		applied = append(applied, i)
	}
	if x.checked != nil {
		if terr := x.checked.TransactionChecked(keyed...); terr != nil {
			kept := make([]int, 0, len(terr.SuccessfulIndices))
			for _, k := range terr.SuccessfulIndices {
				kept = append(kept, applied[k])
			}
			applied = kept
			errs = append(errs, terr.Errors...)
		}
	} else {
		ts.Transaction(keyed...)
	}
	if len(errs) == 0 {
		return nil
	}
	slices.Sort(applied)
	return &cache.TransactionError{SuccessfulIndices: applied, TotalTransactions: len(txns), Errors: errs}
}

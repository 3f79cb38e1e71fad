package pipeline

import (
	"k8s.io/client-go/tools/cache"
)

// indexer turns a cache.ThreadSafeStore from the stores registry into the
// cache.Indexer an informer writes through, as client-go's NewIndexer does
// for its own threadSafeMap (whose constructor cannot take another store).
//
// Merge note: once the stores family lands its Indexer wrapper
// (stores.NewIndexer), newIndexer should return that instead.
type indexer struct {
	cache.ThreadSafeStore
	keyFunc cache.KeyFunc
}

var (
	_ cache.Indexer          = (*indexer)(nil)
	_ cache.TransactionStore = (*txIndexer)(nil)
)

// txIndexer is an indexer whose store applies transactions in one write
// section, so a batching consumer can use it.
type txIndexer struct {
	indexer
	tx cache.ThreadSafeStoreWithTransaction
}

// newIndexer wraps s, keyed by cache.DeletionHandlingMetaNamespaceKeyFunc
// like every informer's store; the result is a cache.TransactionStore when s
// supports transactions.
func newIndexer(s cache.ThreadSafeStore) cache.Indexer {
	ix := indexer{ThreadSafeStore: s, keyFunc: cache.DeletionHandlingMetaNamespaceKeyFunc}
	if tx, ok := s.(cache.ThreadSafeStoreWithTransaction); ok {
		return &txIndexer{indexer: ix, tx: tx}
	}
	return &ix
}

func (ix *indexer) key(obj any) (string, error) {
	k, err := ix.keyFunc(obj)
	if err != nil {
		return "", cache.KeyError{Obj: obj, Err: err}
	}
	return k, nil
}

// Add implements cache.Store.
func (ix *indexer) Add(obj any) error {
	k, err := ix.key(obj)
	if err != nil {
		return err
	}
	ix.ThreadSafeStore.Add(k, obj)
	return nil
}

// Update implements cache.Store.
func (ix *indexer) Update(obj any) error {
	k, err := ix.key(obj)
	if err != nil {
		return err
	}
	ix.ThreadSafeStore.Update(k, obj)
	return nil
}

// Delete implements cache.Store.
func (ix *indexer) Delete(obj any) error {
	k, err := ix.key(obj)
	if err != nil {
		return err
	}
	ix.ThreadSafeStore.DeleteWithObject(k, obj)
	return nil
}

// Get implements cache.Store.
func (ix *indexer) Get(obj any) (any, bool, error) {
	k, err := ix.key(obj)
	if err != nil {
		return nil, false, err
	}
	item, ok := ix.ThreadSafeStore.Get(k)
	return item, ok, nil
}

// GetByKey implements cache.Store.
func (ix *indexer) GetByKey(key string) (any, bool, error) {
	item, ok := ix.ThreadSafeStore.Get(key)
	return item, ok, nil
}

// Replace implements cache.Store; a key error leaves the store untouched.
func (ix *indexer) Replace(list []any, rv string) error {
	items := make(map[string]any, len(list))
	for _, obj := range list {
		k, err := ix.key(obj)
		if err != nil {
			return err
		}
		items[k] = obj
	}
	ix.ThreadSafeStore.Replace(items, rv)
	return nil
}

// Transaction implements cache.TransactionStore: keys are computed first,
// and the keyed operations applied in one call to the store.
func (ix *txIndexer) Transaction(txns ...cache.Transaction) *cache.TransactionError {
	keyed := make([]cache.ThreadSafeStoreTransaction, 0, len(txns))
	var (
		ok   []int
		errs []error
	)
	for i, t := range txns {
		k, err := ix.key(t.Object)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		keyed = append(keyed, cache.ThreadSafeStoreTransaction{Transaction: t, Key: k})
		ok = append(ok, i)
	}
	ix.tx.Transaction(keyed...)
	if len(errs) == 0 {
		return nil
	}
	return &cache.TransactionError{TotalTransactions: len(txns), SuccessfulIndices: ok, Errors: errs}
}

package stores

import (
	"k8s.io/apimachinery/pkg/api/meta"
	clientgofeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
)

// Store is the method set every store of this package provides: client-go's
// cache.ThreadSafeStore with transactions, plus write methods that return an
// IndexFunc's error (as *IndexError) instead of panicking or handing it to
// the error handler. A write that fails changes nothing: the previous object
// and its index entries stay in place.
type Store interface {
	cache.ThreadSafeStoreWithTransaction

	// UpdateChecked is Add/Update with the error returned.
	UpdateChecked(key string, obj any) error
	// ReplaceChecked is Replace with the error returned. On error the store
	// keeps its previous content and resource version.
	ReplaceChecked(items map[string]any, resourceVersion string) error
	// TransactionChecked is Transaction with the failures returned: each
	// transaction whose IndexFunc fails is skipped, the others are applied,
	// and the error lists the skipped ones. The resource version advances to
	// the last transaction's object's, as in client-go, only if that last
	// transaction was applied.
	TransactionChecked(txns ...cache.ThreadSafeStoreTransaction) *cache.TransactionError
}

// Every variant is a Store, and so a cache.ThreadSafeStore with
// transactions: a lister or an Indexer takes any of them.
var (
	_ Store = (*Mutex)(nil)
	_ Store = (*Sharded)(nil)
	_ Store = (*LockFree)(nil)
)

// objectRV returns obj's resourceVersion, and false when obj carries no
// ObjectMeta (client-go then leaves the store's resource version alone).
func objectRV(obj any) (string, bool) {
	if obj == nil {
		return "", false
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", false
	}
	return m.GetResourceVersion(), true
}

// rvVisible mirrors client-go: LastStoreSyncResourceVersion reports "" unless
// the AtomicFIFO feature gate is on (it is by default in v0.37).
func rvVisible() bool {
	return clientgofeatures.FeatureGates().Enabled(clientgofeatures.AtomicFIFO)
}

// writer is the per-key write set a store exposes to applyTransactions,
// which runs it inside the store's single write section.
type writer interface {
	put(key string, obj any) error
	remove(key string)
}

// applyTransactions applies txns in order through w, skipping those whose
// IndexFunc fails, and returns the failures plus the resource version the
// store should move to (ok false: leave it).
func applyTransactions(w writer, txns []cache.ThreadSafeStoreTransaction) (terr *cache.TransactionError, rv string, ok bool) {
	lastApplied := true
	for i, txn := range txns {
		var err error
		switch txn.Type {
		case cache.TransactionTypeAdd, cache.TransactionTypeUpdate:
			err = w.put(txn.Key, txn.Object)
		case cache.TransactionTypeDelete:
			w.remove(txn.Key)
		default:
			err = &unknownTransactionError{typ: txn.Type, key: txn.Key}
		}
		lastApplied = err == nil
		if err != nil {
			if terr == nil {
				terr = &cache.TransactionError{TotalTransactions: len(txns), SuccessfulIndices: successfulSoFar(i)}
			}
			terr.Errors = append(terr.Errors, err)
			continue
		}
		if terr != nil {
			terr.SuccessfulIndices = append(terr.SuccessfulIndices, i)
		}
	}
	if len(txns) > 0 && lastApplied {
		rv, ok = objectRV(txns[len(txns)-1].Object)
	}
	return terr, rv, ok
}

// successfulSoFar lists 0..n-1: every transaction before the first failure.
func successfulSoFar(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// unknownTransactionError rejects a transaction type client-go does not
// define (client-go silently ignores it; we say so).
type unknownTransactionError struct {
	typ cache.TransactionType
	key string
}

// Error names the type and the key, so a log line identifies the caller's
// mistake.
func (e *unknownTransactionError) Error() string {
	return "unknown transaction type " + string(e.typ) + " for key " + e.key
}

package pipeline

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/stores"
)

// bookedStore is the informer store as the consumer writes it: every write
// of a stream key is announced to the ledger (Begin) before it reaches the
// store, and booked by the handler (Applied) after. A reader that finds a
// key absent can then tell a store that lost it (stored before the read, no
// write begun until after) from a delete racing the read.
type bookedStore struct {
	cache.Indexer
	txn cache.TransactionStore
	led *account.Ledger
}

func newBookedStore(store *stores.Indexer, led *account.Ledger) *bookedStore {
	return &bookedStore{Indexer: store, txn: store, led: led}
}

func (s *bookedStore) begin(obj any) {
	if k, ok := keyOf(obj); ok && k < s.led.Keys() {
		s.led.Begin(k)
	}
}

// Add announces, then adds.
func (s *bookedStore) Add(obj any) error { s.begin(obj); return s.Indexer.Add(obj) }

// Update announces, then updates.
func (s *bookedStore) Update(obj any) error { s.begin(obj); return s.Indexer.Update(obj) }

// Delete announces, then deletes.
func (s *bookedStore) Delete(obj any) error { s.begin(obj); return s.Indexer.Delete(obj) }

// Transaction announces every write of the batch, then applies it.
func (s *bookedStore) Transaction(txns ...cache.Transaction) *cache.TransactionError {
	for _, t := range txns {
		s.begin(t.Object)
	}
	return s.txn.Transaction(txns...)
}

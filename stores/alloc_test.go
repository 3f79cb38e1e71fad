package stores_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/stores"
)

// TestUpdateAllocations: with index functions that do not allocate (the
// lab's fixture, and cache.MetaNamespaceIndexFunc, which the stores compute
// themselves), an update that keeps an object's type and index values (the
// common informer update) allocates nothing, in every store of ours, alone
// or as a transaction.
func TestUpdateAllocations(t *testing.T) {
	objs := [2][]*metav1.PartialObjectMetadata{testobj.Population(64, 4, 8), testobj.Population(64, 4, 8)}
	keys := make([]string, len(objs[0]))
	for i, o := range objs[0] {
		keys[i] = testobj.Key(o)
	}
	impls := ours(t, stores.Options{Indexers: testobj.Indexers()})
	// More shards than the compiler's stack buffer for a small make (32
	// bytes) covers, as GOMAXPROCS above 8 gives by default.
	var err error
	if impls["sharded-128"], err = stores.NewSharded(stores.Options{Indexers: testobj.Indexers(), Shards: 128}); err != nil {
		t.Fatal(err)
	}
	for name, s := range impls {
		for i, o := range objs[0] {
			s.Add(keys[i], o)
		}
		i := 0
		got := testing.AllocsPerRun(200, func() {
			j := i % len(keys)
			s.Update(keys[j], objs[i%2][j])
			i++
		})
		if got != 0 {
			t.Errorf("%s: Update allocates %v times per call", name, got)
		}
		// The same update as a transaction: Sharded marks the shards a
		// transaction touches without allocating.
		txns := make([]cache.ThreadSafeStoreTransaction, 1)
		got = testing.AllocsPerRun(200, func() {
			j := i % len(keys)
			txns[0] = cache.ThreadSafeStoreTransaction{Transaction: cache.Transaction{Type: cache.TransactionTypeUpdate, Object: objs[i%2][j]}, Key: keys[j]}
			s.Transaction(txns...)
			i++
		})
		if got != 0 {
			t.Errorf("%s: Transaction of one update allocates %v times per call", name, got)
		}
	}
}

package storetest

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

func txn(typ cache.TransactionType, o any) cache.ThreadSafeStoreTransaction {
	return cache.ThreadSafeStoreTransaction{Transaction: cache.Transaction{Object: o, Type: typ}, Key: keyOf(o)}
}

// transactional returns st as a transactional store or fails the test:
// client-go v0.37's threadSafeMap implements it and informers rely on it.
func transactional(t *testing.T, st cache.ThreadSafeStore) cache.ThreadSafeStoreWithTransaction {
	t.Helper()
	return suite.As[cache.ThreadSafeStoreWithTransaction](t, st)
}

func (s storeSuite) transaction(t *testing.T) {
	st := s.newStore(Indexers())
	ts := transactional(t, st)
	rv := newRVChecker(t, st)
	a, b := object("ns1", "a", "1", "x", "t1"), object("ns1", "b", "2", "x", "")
	a2, c := object("ns1", "a", "3", "y", "t2"), object("ns2", "c", "4", "y", "")
	ts.Transaction(
		txn(cache.TransactionTypeAdd, a),
		txn(cache.TransactionTypeAdd, b),
		txn(cache.TransactionTypeUpdate, a2), // later transactions see earlier ones
		txn(cache.TransactionTypeDelete, b),
		txn(cache.TransactionTypeDelete, object("ns9", "missing", "1", "", "")),
		txn(cache.TransactionTypeAdd, c),
	)
	want := map[string]any{key(a2): a2, key(c): c}
	verifyExact(t, st, get(st), Indexers(), want)
	rv.want("Transaction ending with rv=4", "4")

	ts.Transaction()
	rv.want("an empty Transaction", "4")

	ts.Transaction(txn(cache.TransactionTypeDelete, object("ns2", "c", "9", "y", "")))
	delete(want, key(c))
	verifyExact(t, st, get(st), Indexers(), want)
	rv.want("Transaction ending with a delete at rv=9", "9")
}

// transactionAtomic: while one goroutine rewrites every object in one
// Transaction per generation, concurrent List and ListIndexFuncValues calls
// never see two generations at once.
func (s storeSuite) transactionAtomic(t *testing.T) {
	const keys, generations = 16, 150
	st := s.newStore(Indexers())
	ts := transactional(t, st)
	gen := func(g int) []cache.ThreadSafeStoreTransaction {
		txns := make([]cache.ThreadSafeStoreTransaction, keys)
		for i := range txns {
			txns[i] = txn(cache.TransactionTypeUpdate, object(nsName(i%4), objName(i), itoa(g), "gen-"+itoa(g), ""))
		}
		return txns
	}
	ts.Transaction(gen(0)...)
	stop := whileReading(2, func() bool {
		if objs := st.List(); len(objs) != keys || !oneGeneration(objs) {
			t.Errorf("List saw %d objects of several generations: a Transaction was visible half-applied", len(objs))
			return false
		}
		if v := st.ListIndexFuncValues(appIndex); len(v) != 1 {
			t.Errorf("ListIndexFuncValues(%q) = %v: a Transaction was visible half-applied", appIndex, v)
			return false
		}
		return true
	})
	for g := 1; g <= generations; g++ {
		ts.Transaction(gen(g)...)
	}
	stop()
}

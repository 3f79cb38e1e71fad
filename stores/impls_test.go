package stores_test

import (
	"testing"

	"go.uber.org/goleak"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/registry"
	"github.com/queuelab/queuelab/stores"
	"github.com/queuelab/queuelab/stores/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// suiteOptions translates an entry's declared guarantees into suite options.
func suiteOptions(g stores.Guarantees) []storetest.Option {
	var opts []storetest.Option
	if g.Ext {
		opts = append(opts, storetest.WithExt())
	}
	if !g.AtomicTransactions {
		opts = append(opts, storetest.WithNonAtomicTransactions())
	}
	if !g.SnapshotScans {
		opts = append(opts, storetest.WithoutSnapshotScans())
	}
	if !g.OrderedUpdates {
		opts = append(opts, storetest.WithoutOrderedUpdates())
	}
	if g.LockFreeReads {
		opts = append(opts, storetest.WithLockFreeReads())
	}
	return opts
}

// TestThreadSafeStore runs the conformance suite over every registered
// store, client-go's included.
func TestThreadSafeStore(t *testing.T) {
	for _, e := range stores.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) {
			storetest.RunThreadSafeStore(t, func(_ *testing.T, ix cache.Indexers) cache.ThreadSafeStore {
				return e.New(ix)
			}, suiteOptions(e.Guarantees)...)
		})
	}
}

// TestIndexer runs the Indexer suite over client-go's cache.NewIndexer and
// over stores.NewIndexer wrapping every registered store.
func TestIndexer(t *testing.T) {
	t.Run("impl=clientgo-cache", func(t *testing.T) {
		storetest.RunIndexer(t, func(_ *testing.T, kf cache.KeyFunc, ix cache.Indexers) cache.Indexer {
			return cache.NewIndexer(kf, ix)
		})
	})
	for _, e := range stores.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) {
			storetest.RunIndexer(t, func(_ *testing.T, kf cache.KeyFunc, ix cache.Indexers) cache.Indexer {
				return stores.NewIndexer(kf, e.New(ix))
			}, suiteOptions(e.Guarantees)...)
		})
	}
}

// TestDifferential compares every registered store with client-go's over
// seeded random operation sequences.
func TestDifferential(t *testing.T) {
	for _, e := range stores.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) {
			for seed := range uint64(8) {
				storetest.RunDifferential(t, newStore(e), seed, 250)
			}
		})
	}
}

// FuzzDifferential drives the differential check with fuzz input:
// go test -fuzz FuzzDifferential ./stores
func FuzzDifferential(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte("replace then index: \x0a\x05\x0e\x02\x0b\x0c\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, e := range stores.Impls[1:] {
			storetest.CheckDifferential(t, newStore(e), data)
		}
	})
}

func newStore(e storeEntry) storetest.NewStore {
	return func(_ *testing.T, ix cache.Indexers) cache.ThreadSafeStore { return e.New(ix) }
}

type storeEntry = registry.Entry[stores.New, stores.Guarantees]

package registry_test

import (
	"fmt"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/stores"
	"github.com/queuelab/queuelab/stores/storetest"
)

// TestStores runs the store suite over every registered store, client-go's
// included, each held to what it declares.
func TestStores(t *testing.T) {
	for _, e := range registry.Stores() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			storetest.Run(t, e.New, e.Guarantees)
		})
	}
}

// TestStoresIndexer runs the Indexer suite over client-go's cache.NewIndexer
// and over stores.NewIndexer wrapping every registered store.
func TestStoresIndexer(t *testing.T) {
	t.Run("impl=clientgo-cache", func(t *testing.T) {
		clientgo, err := registry.Stores().Lookup(registry.Baseline)
		if err != nil {
			t.Fatal(err)
		}
		storetest.RunIndexer(t, func(kf cache.KeyFunc, ix cache.Indexers) cache.Indexer {
			return cache.NewIndexer(kf, ix)
		}, clientgo.Guarantees)
	})
	for _, e := range registry.Stores() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			storetest.RunIndexer(t, func(kf cache.KeyFunc, ix cache.Indexers) cache.Indexer {
				return stores.NewIndexer(kf, e.New(ix))
			}, e.Guarantees)
		})
	}
}

// TestStoresDiff compares every registered store with client-go's over
// seeded operation sequences.
func TestStoresDiff(t *testing.T) {
	for _, e := range registry.Stores() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			for seed := range uint64(8) {
				t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
					storetest.Diff(t, e.New, e.Guarantees, storetest.SeedOps(seed))
				})
			}
		})
	}
}

// TestStoresDiffReplay replays every committed op sequence (a failure Diff
// once kept) against every registered store.
func TestStoresDiffReplay(t *testing.T) {
	names, ops := suite.OpFiles(t, "testdata/diff/stores")
	for _, e := range registry.Stores() {
		for _, name := range names {
			t.Run("impl="+e.Name+"/ops="+name, func(t *testing.T) {
				storetest.Diff(t, e.New, e.Guarantees, ops[name])
			})
		}
	}
}

// FuzzStoresDiff drives the differential check with fuzz input:
// go test -fuzz FuzzStoresDiff ./registry
func FuzzStoresDiff(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte("replace then index: \x0a\x05\x0e\x02\x0b\x0c\x00"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, e := range registry.Stores() {
			storetest.Diff(t, e.New, e.Guarantees, ops)
		}
	})
}

package stores_test

import (
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/stores"
)

// BenchmarkReplace measures the bulk load an informer's relist does: a
// Replace of n objects indexed by namespace, as a shared informer's store
// is, into a store already holding them (the relist case; the first list
// differs only in the old version it drops). The time to synced at a
// million objects is mostly this call (results/notes.md, issue 27).
func BenchmarkReplace(b *testing.B) {
	for _, n := range []int{200_000, 1_000_000} {
		objs := testobj.Population(n, 100, 1000)
		items := make(map[string]any, n)
		for _, o := range objs {
			items[testobj.Key(o)] = o
		}
		indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
		for _, impl := range []struct {
			name string
			new  func(stores.Options) (stores.Store, error)
		}{
			{"snapshot", func(o stores.Options) (stores.Store, error) { return stores.NewSnapshot(o) }},
			{"lockfree", func(o stores.Options) (stores.Store, error) { return stores.NewLockFree(o) }},
		} {
			b.Run("objects="+strconv.Itoa(n)+"/impl="+impl.name, func(b *testing.B) {
				s, err := impl.new(stores.Options{Indexers: indexers})
				if err != nil {
					b.Fatal(err)
				}
				s.Replace(items, "1")
				b.ReportAllocs()
				for b.Loop() {
					s.Replace(items, "2")
				}
				if got := len(s.ListKeys()); got != n {
					b.Fatalf("%d keys after Replace, want %d", got, n)
				}
			})
		}
	}
}

package stores

import (
	"hash/maphash"
	"math/rand/v2"
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// TestTableChurn drives one table through many inserts and deletes, far
// more keys than the suites use, so that keyIndex grows, probes wrap around
// and backward-shift deletion moves entries; after every step each key must
// be found exactly where the reference map says.
func TestTableChurn(t *testing.T) {
	tb := newTable(cache.Indexers{}, maphash.MakeSeed(), 0)
	ref := map[string]any{}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 20000 {
		k := "k" + strconv.Itoa(rng.IntN(3000))
		if rng.IntN(3) == 0 {
			tb.remove(k)
			delete(ref, k)
		} else {
			if err := tb.put(k, step); err != nil {
				t.Fatal(err)
			}
			ref[k] = step
		}
		if step%997 != 0 {
			continue
		}
		if tb.len() != len(ref) || tb.ids.n != len(ref) {
			t.Fatalf("step %d: %d records, %d index entries, want %d", step, tb.len(), tb.ids.n, len(ref))
		}
		for i := range 3000 {
			k := "k" + strconv.Itoa(i)
			got, ok := tb.get(k)
			want, wok := ref[k]
			if ok != wok || got != want {
				t.Fatalf("step %d: get(%s) = %v, %v; want %v, %v", step, k, got, ok, want, wok)
			}
		}
	}
}

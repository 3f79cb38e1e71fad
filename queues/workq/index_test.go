package workq

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// The index agrees with a Go map under a random mix of inserts, lookups
// and removals over a small key space (so probe runs wrap, collide and are
// shifted back), including with hashes forced to collide.
func TestIndexMatchesMap(t *testing.T) {
	seed := maphash.MakeSeed()
	for _, collide := range []bool{false, true} {
		hash := func(k int) uint64 {
			if collide {
				return uint64(k%3)<<1 | 1 // three homes for all keys
			}
			return hashOf(seed, k)
		}
		var x index[int, int32]
		want := make(map[int]int32)
		rng := rand.New(rand.NewPCG(1, 2))
		for step := range 20000 {
			k := rng.IntN(40)
			h := hash(k)
			if v, ok := want[k]; ok && rng.IntN(2) == 0 {
				if rng.IntN(2) == 0 {
					x.remove(h, v) // as a table's release
				} else { // as Ring's Done: probe, then remove at the cell
					i, found := x.find(h, k)
					if !found || x.at(i) != v {
						t.Fatalf("step %d: find(%d) = cell %d, %v; want its value %d", step, k, i, found, v)
					}
					x.removeAt(i)
				}
				delete(want, k)
			} else {
				i, found := x.slot(h, k)
				if found != ok {
					t.Fatalf("step %d: key %d found=%v, map has it=%v", step, k, found, ok)
				}
				if !found {
					x.insertAt(i, h, k, int32(step))
					want[k] = int32(step)
				} else if x.at(i) != v {
					t.Fatalf("step %d: key %d value %d, want %d", step, k, x.at(i), v)
				}
			}
			if x.len() != len(want) {
				t.Fatalf("step %d: len %d, want %d", step, x.len(), len(want))
			}
		}
		for k, v := range want {
			if got, ok := x.lookup(hash(k), k); !ok || got != v {
				t.Fatalf("collide=%v: lookup(%d) = %d, %v; want %d", collide, k, got, ok, v)
			}
		}
	}
}

// Sharded takes an item's shard from the top bits of the hash its shard's
// table probes with: the items still spread evenly over the shards.
func TestShardedSpreadsItems(t *testing.T) {
	q, err := NewSharded[string](Options{Shards: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	for i := range 16_000 {
		q.Add(fmt.Sprintf("ns-%d/pod-%d", i%100, i))
	}
	for i := range q.shards {
		// 1000 expected per shard; a uniform hash stays far inside ±30%.
		if n := q.shards[i].t.queued(); n < 700 || n > 1300 {
			t.Errorf("shard %d holds %d of 16000 items", i, n)
		}
	}
}

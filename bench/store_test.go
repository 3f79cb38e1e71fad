package bench

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/bench/internal/retained"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/testobj"
)

// The store benchmarks' population: 100000 objects over 100 namespaces
// (1000 objects each) and 1000 values of the app label (100 each), indexed
// by namespace and by app (testobj.Indexers).
const (
	storeObjects    = 100000
	storeNamespaces = 100
	storeApps       = 1000
	storeDims       = "/objects=100000/indexes=2"
)

// storePopulation is one population: two versions of every object (same
// namespace and labels, resourceVersion 1 and 2, so an update keeps its
// index values, as most informer updates do) and their keys.
type storePopulation struct {
	versions [2][]*metav1.PartialObjectMetadata
	keys     []string
}

func newStorePopulation(n, namespaces int) *storePopulation {
	p := &storePopulation{keys: make([]string, n)}
	p.versions[0] = testobj.Population(n, namespaces, storeApps)
	p.versions[1] = testobj.Population(n, namespaces, storeApps)
	for i, o := range p.versions[1] {
		o.ResourceVersion = "2"
		p.keys[i] = testobj.Key(p.versions[0][i])
	}
	return p
}

// namespaces and apps are the population's index values, named once so that
// the read benchmarks allocate only what the store does.
var namespaces, apps = valueNames("ns-", storeNamespaces), valueNames("app-", storeApps)

func valueNames(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = prefix + strconv.Itoa(i)
	}
	return names
}

var population = sync.OnceValue(func() *storePopulation { return newStorePopulation(storeObjects, storeNamespaces) })

// build returns a store made by newStore holding version 0 of p.
func build(newStore func(cache.Indexers) cache.ThreadSafeStore, p *storePopulation) cache.ThreadSafeStore {
	st := newStore(testobj.Indexers())
	for i, o := range p.versions[0] {
		st.Add(p.keys[i], o)
	}
	return st
}

// perImpl runs body as sub-benchmark impl=<name> for every registered store
// with a store built from p inside the leaf, so a -bench filter that skips a
// leaf also skips its build (body's b.Loop resets the timer after it). The
// store dies with its leaf: every implementation then runs with the same
// live heap (the population and its own store), so the garbage collector's
// share of an allocating operation is not larger for implementations listed
// later.
func perImpl(b *testing.B, p *storePopulation, body func(b *testing.B, st cache.ThreadSafeStore)) {
	for _, e := range registry.Stores() {
		b.Run("impl="+e.Name, func(b *testing.B) {
			st := build(e.New, p)
			b.ReportAllocs()
			body(b, st)
		})
	}
}

// BenchmarkStore measures single-goroutine operations, concurrent mixes and
// retained memory of every registered store over the same population.
func BenchmarkStore(b *testing.B) {
	p := population()
	b.Run("op=get"+storeDims, func(b *testing.B) {
		order := rand.New(rand.NewPCG(1, 2)).Perm(len(p.keys))
		perImpl(b, p, func(b *testing.B, st cache.ThreadSafeStore) {
			i := 0
			for b.Loop() {
				if _, ok := st.Get(p.keys[order[i%len(order)]]); !ok {
					b.Fatal("missing key")
				}
				i++
			}
		})
	})
	b.Run("op=update"+storeDims, func(b *testing.B) {
		perImpl(b, p, func(b *testing.B, st cache.ThreadSafeStore) {
			i := 0
			for b.Loop() {
				j := i % len(p.keys)
				st.Update(p.keys[j], p.versions[(i/len(p.keys)+1)%2][j])
				i++
			}
		})
	})
	b.Run("op=add-delete"+storeDims, func(b *testing.B) {
		extra := testobj.Population(1024, storeNamespaces, storeApps)
		keys := make([]string, len(extra))
		for i, o := range extra {
			o.Name = "extra-" + strconv.Itoa(i)
			keys[i] = testobj.Key(o)
		}
		perImpl(b, p, func(b *testing.B, st cache.ThreadSafeStore) {
			i := 0
			for b.Loop() {
				j := i % len(extra)
				st.Add(keys[j], extra[j])
				st.Delete(keys[j])
				i++
			}
		})
	})
	// byindex asks the namespace index: 1000 of the 100000 objects match.
	b.Run("op=byindex"+storeDims, func(b *testing.B) {
		perImpl(b, p, func(b *testing.B, st cache.ThreadSafeStore) {
			i := 0
			for b.Loop() {
				objs, err := st.ByIndex(cache.NamespaceIndex, namespaces[i%storeNamespaces])
				if err != nil || len(objs) != storeObjects/storeNamespaces {
					b.Fatalf("ByIndex: %d objects, %v", len(objs), err)
				}
				i++
			}
		})
	})
	b.Run("op=list"+storeDims, func(b *testing.B) {
		perImpl(b, p, func(b *testing.B, st cache.ThreadSafeStore) {
			for b.Loop() {
				if len(st.List()) != storeObjects {
					b.Fatal("List lost objects")
				}
			}
		})
	})
	b.Run("op=replace"+storeDims, func(b *testing.B) {
		items := make(map[string]any, len(p.keys))
		for i, k := range p.keys {
			items[k] = p.versions[1][i]
		}
		perImpl(b, p, func(b *testing.B, st cache.ThreadSafeStore) {
			for b.Loop() {
				st.Replace(items, "3")
			}
		})
	})
	for _, readers := range []int{2, 8, 64} {
		b.Run("op=mixed/readers="+strconv.Itoa(readers)+"/writers=1"+storeDims, func(b *testing.B) {
			perImpl(b, p, func(b *testing.B, st cache.ThreadSafeStore) {
				benchMixed(b, st, p, readers)
			})
		})
	}
	b.Run("op=memory"+storeDims, func(b *testing.B) { benchMemory(b, p) })
}

// benchMixed: readers goroutines alternate Get of a random key and ByIndex
// of a random app value (100 objects) while one writer updates objects.
func benchMixed(b *testing.B, st cache.ThreadSafeStore, p *storePopulation, readers int) {
	read := func(rng *rand.Rand, i int) {
		if i%2 == 0 {
			if _, ok := st.Get(p.keys[rng.IntN(len(p.keys))]); !ok {
				panic("missing key")
			}
			return
		}
		if _, err := st.ByIndex(testobj.AppLabel, apps[rng.IntN(storeApps)]); err != nil {
			panic(err)
		}
	}
	contend(b, st, p, readers, read)
}

// contend runs readers goroutines calling read in a loop and one writer
// goroutine updating objects, and reports reads/s and writes/s over fixed
// measuring windows (contendRates). A b.Loop iteration is a window, not an
// operation, so go test's ns/op would be the window's length: it is
// suppressed here, where the benchmark knows it, and what reads the output
// (queuelab report, benchstat) finds only the rates.
func contend(b *testing.B, st cache.ThreadSafeStore, p *storePopulation, readers int, read func(rng *rand.Rand, i int)) {
	var writes atomic.Int64
	contendRates(b, readers, read, func(i int) {
		j := i % len(p.keys)
		st.Update(p.keys[j], p.versions[(i/len(p.keys)+1)%2][j])
		writes.Add(1)
	}, &writes)
	b.ReportMetric(0, "ns/op")
}

// benchMemory reports the heap a store retains per object beyond the
// objects and keys themselves (allocated before the first measurement):
// live heap after a GC with the store built, minus before.
func benchMemory(b *testing.B, p *storePopulation) {
	for _, e := range registry.Stores() {
		b.Run("impl="+e.Name, func(b *testing.B) {
			b.ReportAllocs()
			retained.PerObject(b, len(p.keys), func() any { return build(e.New, p) })
		})
	}
}

// scanPopulation is the issue-7 scenario's size: client-go's informer
// benchmark sees a single writer starve behind listers at this scale.
var scanPopulation = sync.OnceValue(func() *storePopulation { return newStorePopulation(40000, storeNamespaces) })

// BenchmarkStoreScanContention (issue 7): readers goroutines each loop over
// a full List and a ByIndex of one namespace (400 objects) while one writer
// updates objects, as an informer's DeltaFIFO consumer does while listers
// scan. With a store whose scans hold the lock throughout, writes/s
// collapses.
func BenchmarkStoreScanContention(b *testing.B) {
	p := scanPopulation()
	for _, readers := range []int{2, 10} {
		b.Run("op=scan-contention/objects=40000/readers="+strconv.Itoa(readers), func(b *testing.B) {
			perImpl(b, p, func(b *testing.B, st cache.ThreadSafeStore) {
				contend(b, st, p, readers, func(rng *rand.Rand, _ int) {
					if len(st.List()) != len(p.keys) {
						panic("List lost objects")
					}
					if _, err := st.ByIndex(cache.NamespaceIndex, namespaces[rng.IntN(storeNamespaces)]); err != nil {
						panic(err)
					}
				})
			})
		})
	}
}

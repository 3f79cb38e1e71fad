package stores

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// put stores e under its key, replacing any element with that key (writer
// only): lookup, then setAt or insertAt, as LockFree's writer composes them.
// Only the tests need it in one call.
func (m *lfMap[E, P]) put(e *E) {
	if x, i := m.lookup(P(e).mapKey()); x != nil {
		m.setAt(i, e)
	} else {
		m.insertAt(i, e)
	}
}

// TestLFMapChurn drives one lfMap through many inserts, replacements and
// removals over more keys than the suites use, so that it rehashes both ways
// (growing, and in place to drop tombstones) and probes wrap around; every
// so often each key must be found exactly as the reference map says.
func TestLFMapChurn(t *testing.T) {
	m := newLFMap[version](0)
	ref := map[string]*version{}
	rng := rand.New(rand.NewPCG(3, 4))
	for step := range 30000 {
		k := "k" + strconv.Itoa(rng.IntN(3000))
		switch {
		case rng.IntN(3) == 0:
			m.remove(k)
			delete(ref, k)
		case step%2 == 0 && ref[k] != nil:
			v := &version{key: k}
			_, at := m.lookup(k)
			m.setAt(at, v)
			ref[k] = v
		default:
			v := &version{key: k}
			m.put(v)
			ref[k] = v
		}
		if step%1009 != 0 {
			continue
		}
		if m.live != len(ref) {
			t.Fatalf("step %d: %d live, want %d", step, m.live, len(ref))
		}
		for i := range 3000 {
			k := "k" + strconv.Itoa(i)
			if got := m.get(k); got != ref[k] {
				t.Fatalf("step %d: get(%s) = %p, want %p", step, k, got, ref[k])
			}
		}
		keys := slices.Sorted(maps.Keys(ref))
		if got := slices.Sorted(slices.Values(m.appendKeys(nil))); !slices.Equal(got, keys) {
			t.Fatalf("step %d: appendKeys = %d keys, want %d", step, len(got), len(keys))
		}
	}
}

// TestLFMapReadersFindStableKeys: while one writer churns other keys
// (inserts into tombstones, removals, replacements, rehashes), readers must
// always find every key that is present throughout, with its key.
func TestLFMapReadersFindStableKeys(t *testing.T) {
	m := newLFMap[version](0)
	stable := make([]string, 200)
	for i := range stable {
		stable[i] = "stable-" + strconv.Itoa(i)
		m.put(&version{key: stable[i]})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() {
			for i := r; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := stable[i%len(stable)]
				if v := m.get(k); v == nil || v.key != k {
					t.Errorf("get(%s) = %v during churn", k, v)
					return
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		k := "churn-" + strconv.Itoa(rng.IntN(2000))
		if m.get(k) != nil && rng.IntN(2) == 0 {
			m.remove(k)
		} else {
			m.put(&version{key: k})
		}
	}
	close(stop)
	wg.Wait()
}

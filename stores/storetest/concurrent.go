package storetest

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/tools/cache"
)

func itoa(i int) string     { return strconv.Itoa(i) }
func nsName(i int) string   { return "ns-" + itoa(i) }
func objName(i int) string  { return "obj-" + itoa(i) }
func appValue(i int) string { return "app-" + itoa(i) }
func mentions(err error, s string) bool {
	return err != nil && strings.Contains(err.Error(), s)
}

// concurrent hammers a store with writers on disjoint key ranges and
// readers checking every answer per key (each object ByIndex returns has the
// asked value, each Get returns the asked key); afterwards the content and
// every index must equal a recomputation from the writers' final state.
func (s storeSuite) concurrent(t *testing.T) {
	const writers, readers, keysPerWriter, opsPerWriter, apps = 4, 4, 48, 1500, 6
	st := s.newStore(Indexers())
	ts := transactional(t, st)

	finals := make([]map[string]any, writers)
	var wwg, rwg sync.WaitGroup
	stop := make(chan struct{})
	for r := range readers {
		rwg.Go(func() { readLoop(t, st, rand.New(rand.NewPCG(uint64(r), 7)), writers, keysPerWriter, apps, stop) })
	}
	for w := range writers {
		wwg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			final := make(map[string]any)
			finals[w] = final
			newObj := func(i, rv int) any {
				return object(nsName(w), objName(i), itoa(rv), appValue(rng.IntN(apps)), tagsFor(rng))
			}
			for op := range opsPerWriter {
				i := rng.IntN(keysPerWriter)
				k := nsName(w) + "/" + objName(i)
				switch p := rng.IntN(10); {
				case p < 6:
					o := newObj(i, op)
					st.Update(k, o)
					final[k] = o
				case p < 8:
					st.DeleteWithObject(k, object(nsName(w), objName(i), itoa(op), "", ""))
					delete(final, k)
				default:
					j := rng.IntN(keysPerWriter)
					o1, o2 := newObj(i, op), newObj(j, op)
					ts.Transaction(txn(cache.TransactionTypeUpdate, o1), txn(cache.TransactionTypeAdd, o2),
						txn(cache.TransactionTypeDelete, o1))
					final[keyOf(o1)] = o1
					final[keyOf(o2)] = o2
					delete(final, keyOf(o1))
				}
			}
		})
	}
	wwg.Wait()
	close(stop)
	rwg.Wait()

	want := make(map[string]any)
	for _, f := range finals {
		for k, o := range f {
			want[k] = o
		}
	}
	verifyExact(t, st, get(st), Indexers(), want)
}

func tagsFor(rng *rand.Rand) string {
	switch rng.IntN(3) {
	case 0:
		return ""
	case 1:
		return "t" + itoa(rng.IntN(4))
	default:
		return "t" + itoa(rng.IntN(4)) + ",t" + itoa(rng.IntN(4))
	}
}

// readLoop checks answers per key until stop is closed.
func readLoop(t *testing.T, st cache.ThreadSafeStore, rng *rand.Rand, writers, keys, apps int, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		w := rng.IntN(writers)
		switch rng.IntN(5) {
		case 0:
			k := nsName(w) + "/" + objName(rng.IntN(keys))
			if o, ok := st.Get(k); ok && keyOf(o) != k {
				t.Errorf("Get(%q) returned %s", k, describe(o))
				return
			}
		case 1:
			v := appValue(rng.IntN(apps))
			objs, err := st.ByIndex(appIndex, v)
			if !allHave(t, "ByIndex(app, "+v+")", objs, err, func(o any) bool { return labelOf(o, appIndex) == v }) {
				return
			}
		case 2:
			ns := nsName(w)
			objs, err := st.Index(nsIndex, object(ns, "probe", "1", "", ""))
			if !allHave(t, "Index(namespace, "+ns+")", objs, err, func(o any) bool { m, _ := metaOf(o); return m.GetNamespace() == ns }) {
				return
			}
		case 3:
			tag := "t" + itoa(rng.IntN(4))
			objs, err := st.ByIndex(tagsIndex, tag)
			if !allHave(t, "ByIndex(tags, "+tag+")", objs, err, func(o any) bool { return hasTag(o, tag) }) {
				return
			}
		default:
			if objs := st.List(); !allHave(t, "List", objs, nil, func(any) bool { return true }) {
				return
			}
		}
	}
}

// allHave reports (and returns false) unless every object satisfies ok and
// no key appears twice.
func allHave(t *testing.T, what string, objs []any, err error, ok func(any) bool) bool {
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return false
	}
	seen := make(map[string]bool, len(objs))
	for _, o := range objs {
		k := keyOf(o)
		if seen[k] {
			t.Errorf("%s returned key %s twice", what, k)
			return false
		}
		seen[k] = true
		if !ok(o) {
			t.Errorf("%s returned %s, which does not match: an index answer inconsistent with its object", what, describe(o))
			return false
		}
	}
	return true
}

func labelOf(o any, label string) string {
	m, _ := metaOf(o)
	return m.GetLabels()[label]
}

func hasTag(o any, tag string) bool {
	tags, _ := tagsIndexFunc(o)
	return slices.Contains(tags, tag)
}

// replaceAtomic: while one goroutine alternates Replace between two
// contents (overlapping keys, distinct objects), readers only ever see one
// content whole.
func (s storeSuite) replaceAtomic(t *testing.T) {
	const n, rounds = 64, 60
	contents := [2]map[string]any{{}, {}}
	for c, app := range []string{"a", "b"} {
		for i := range n {
			o := object(nsName(i%4), objName(i+c*n/2), "1", app, "")
			contents[c][keyOf(o)] = o
		}
	}
	st := s.newStore(Indexers())
	st.Replace(maps.Clone(contents[0]), "1")
	stop := whileReading(2, func() bool {
		if objs, apps := st.List(), st.ListIndexFuncValues(appIndex); len(objs) != n || !oneGeneration(objs) || len(apps) != 1 {
			t.Errorf("during Replace: List saw %d objects, ListIndexFuncValues %v: a half-replaced store", len(objs), apps)
			return false
		}
		a, errA := st.ByIndex(appIndex, "a")
		b, errB := st.ByIndex(appIndex, "b")
		if errA != nil || errB != nil || (len(a) != 0 && len(a) != n) || (len(b) != 0 && len(b) != n) {
			t.Errorf("ByIndex during Replace: %d and %d objects (%v, %v): a half-replaced index", len(a), len(b), errA, errB)
			return false
		}
		return true
	})
	for r := range rounds {
		st.Replace(maps.Clone(contents[(r+1)%2]), itoa(r))
	}
	stop()
	verifyExact(t, st, get(st), Indexers(), contents[rounds%2])
}

// whileReading starts readers goroutines calling check until it returns
// false or the returned stop function is called; stop waits for them.
func whileReading(readers int, check func() bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if !check() {
					return
				}
			}
		})
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// oneGeneration reports whether all objects carry the same app label.
func oneGeneration(objs []any) bool {
	for _, o := range objs {
		if labelOf(o, appIndex) != labelOf(objs[0], appIndex) {
			return false
		}
	}
	return true
}

package storetest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// RunDifferential applies ops seeded random operations to a store built by
// newStore and to client-go's threadSafeMap, and after every operation
// compares everything a caller can observe: Get of every key, List,
// ListKeys, and for every index (plus an unknown one) ListIndexFuncValues,
// ByIndex and IndexKeys of every value, Index of probe objects, and
// LastStoreSyncResourceVersion; lists compare as sets. A mismatch fails the
// test with the seed and the operation trace.
func RunDifferential(t *testing.T, newStore NewStore, seed uint64, ops int) {
	t.Helper()
	g := &generator{src: randSource{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}}
	d := newDifferential(t, newStore, fmt.Sprintf("seed %d", seed))
	for range ops {
		if !d.step(g.next()) {
			return
		}
	}
}

// CheckDifferential is RunDifferential driven by fuzz input instead of a
// seed: every byte is one choice of the same generator.
func CheckDifferential(t *testing.T, newStore NewStore, data []byte) {
	t.Helper()
	src := &byteSource{data: data}
	g := &generator{src: src}
	d := newDifferential(t, newStore, fmt.Sprintf("fuzz input %x", data))
	for !src.exhausted() {
		if !d.step(g.next()) {
			return
		}
	}
}

type differential struct {
	t          *testing.T
	got, model cache.ThreadSafeStore
	origin     string
	trace      []string
}

func newDifferential(t *testing.T, newStore NewStore, origin string) *differential {
	return &differential{
		t:      t,
		got:    newStore(t, Indexers()),
		model:  cache.NewThreadSafeStore(Indexers(), cache.Indices{}),
		origin: origin,
	}
}

// step applies o to both stores and compares them; false after a failure.
func (d *differential) step(o op) bool {
	d.t.Helper()
	d.trace = append(d.trace, o.desc)
	o.apply(d.got)
	o.apply(d.model)
	if diff := compareStores(d.got, d.model); diff != "" {
		d.t.Errorf("%s: after operation %d the store differs from client-go's: %s\ntrace:\n  %s",
			d.origin, len(d.trace), diff, strings.Join(d.trace, "\n  "))
		return false
	}
	return true
}

// compareStores returns a description of the first observable difference.
func compareStores(got, model cache.ThreadSafeStore) string {
	if g, m := sorted(got.ListKeys()), sorted(model.ListKeys()); !slices.Equal(g, m) {
		return fmt.Sprintf("ListKeys = %v, client-go %v", g, m)
	}
	if !sameObjects(got.List(), model.List()) {
		return "List differs"
	}
	for k := range genKeys {
		key := nsName(k%genNamespaces) + "/" + objName(k)
		g, gok := got.Get(key)
		m, mok := model.Get(key)
		if g != m || gok != mok {
			return fmt.Sprintf("Get(%s) = %s, %v; client-go %s, %v", key, describe(g), gok, describe(m), mok)
		}
	}
	if g, m := got.LastStoreSyncResourceVersion(), model.LastStoreSyncResourceVersion(); g != m {
		return fmt.Sprintf("LastStoreSyncResourceVersion = %q, client-go %q", g, m)
	}
	names := slices.Sorted(maps.Keys(model.GetIndexers()))
	if g := slices.Sorted(maps.Keys(got.GetIndexers())); !slices.Equal(g, names) {
		return fmt.Sprintf("GetIndexers = %v, client-go %v", g, names)
	}
	for _, name := range append(names, "no-such-index") {
		if diff := compareIndex(got, model, name); diff != "" {
			return diff
		}
	}
	return ""
}

func compareIndex(got, model cache.ThreadSafeStore, name string) string {
	values := sorted(model.ListIndexFuncValues(name))
	if g := sorted(got.ListIndexFuncValues(name)); !slices.Equal(g, values) {
		return fmt.Sprintf("ListIndexFuncValues(%s) = %v, client-go %v", name, g, values)
	}
	for _, v := range append(values, "no-such-value") {
		g, gerr := got.ByIndex(name, v)
		m, merr := model.ByIndex(name, v)
		if (gerr == nil) != (merr == nil) || !sameObjects(g, m) {
			return fmt.Sprintf("ByIndex(%s, %s) = %d objects, %v; client-go %d, %v", name, v, len(g), gerr, len(m), merr)
		}
		gk, gerr := got.IndexKeys(name, v)
		mk, merr := model.IndexKeys(name, v)
		if (gerr == nil) != (merr == nil) || !slices.Equal(sorted(gk), sorted(mk)) {
			return fmt.Sprintf("IndexKeys(%s, %s) = %v, %v; client-go %v, %v", name, v, gk, gerr, mk, merr)
		}
	}
	for _, probe := range []any{
		object(nsName(0), "p", "1", appValue(0), "t0,t1"),
		object(nsName(1), "q", "1", "", "t2,t2,t3"),
	} {
		g, gerr := got.Index(name, probe)
		m, merr := model.Index(name, probe)
		if (gerr == nil) != (merr == nil) || !sameObjects(g, m) {
			return fmt.Sprintf("Index(%s, %s) = %d objects, %v; client-go %d, %v", name, describe(probe), len(g), gerr, len(m), merr)
		}
	}
	return ""
}

// sameObjects compares two object lists as multisets of identities.
func sameObjects(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	count := make(map[any]int, len(a))
	for _, o := range a {
		count[o]++
	}
	for _, o := range b {
		count[o]--
		if count[o] < 0 {
			return false
		}
	}
	return true
}

package storetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// Diff applies the operations decoded from ops (any byte string is a valid
// program; every byte is one choice of the operation generator) to a store
// built by newStore and to client-go's threadSafeMap, and after every
// operation compares everything a caller can observe: Get of every key,
// List, ListKeys, and for every index (plus an unknown one)
// ListIndexFuncValues, ByIndex and IndexKeys of every value, Index of probe
// objects, and LastStoreSyncResourceVersion; lists compare as sets. A
// mismatch fails the test with the operation trace, and ops is kept for
// replay (suite.KeepFailingOps).
//
// The operations run one at a time, so every store, whatever g declares,
// must answer exactly as client-go's does: the guarantees a store may relax
// concern only what readers observe while a write is in progress. g is
// taken so that Diff is called as Run is.
func Diff(t *testing.T, newStore func(indexers cache.Indexers) cache.ThreadSafeStore, g Guarantees, ops []byte) {
	t.Helper()
	suite.KeepFailingOps(t, ops)
	src := suite.NewOps(ops)
	gen := &generator{src: &src}
	d := &differential{
		t:     t,
		got:   newStore(Indexers()),
		model: cache.NewThreadSafeStore(Indexers(), cache.Indices{}),
	}
	for !src.Done() {
		if !d.step(gen.next()) {
			return
		}
	}
}

// seedOpsLen is how many bytes SeedOps makes: a few hundred operations.
const seedOpsLen = 2048

// SeedOps returns the pseudo-random operations seed stands for, for Diff:
// a seeded run and its replay from a committed file decode the same bytes.
func SeedOps(seed uint64) []byte {
	return suite.SeedOps(seed, seedOpsLen)
}

type differential struct {
	t          *testing.T
	got, model cache.ThreadSafeStore
	trace      []string
}

// step applies o to both stores and compares them; false after a failure.
func (d *differential) step(o op) bool {
	d.t.Helper()
	d.trace = append(d.trace, o.desc)
	o.apply(d.got)
	o.apply(d.model)
	if diff := compareStores(d.got, d.model); diff != "" {
		d.t.Errorf("after operation %d the store differs from client-go's: %s\ntrace:\n  %s",
			len(d.trace), diff, strings.Join(d.trace, "\n  "))
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

package storetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// The generator's universe is small so that operations collide: few keys,
// namespaces, app values and tags.
const (
	genKeys       = 12
	genNamespaces = 3
	genApps       = 3
	genTags       = 4
	extraIndex    = "extra"
)

// extraIndexFunc is the indexer the generator adds with AddIndexers: the
// first character of the name, so it shares values across namespaces.
func extraIndexFunc(obj any) ([]string, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	return []string{m.GetName()[:1]}, nil
}

// op is one generated operation: a description for the trace and the call.
type op struct {
	desc  string
	apply func(s cache.ThreadSafeStore)
}

// generator produces random operations whose objects are shared by every
// store they are applied to, so results compare by identity.
type generator struct {
	src  *suite.Ops
	step int
}

func (g *generator) object(k int) any {
	ns, name := nsName(k%genNamespaces), objName(k)
	app := ""
	if a := g.src.Intn(genApps + 1); a < genApps {
		app = appValue(a)
	}
	var tags []string
	for range g.src.Intn(3) {
		tags = append(tags, "t"+itoa(g.src.Intn(genTags)))
	}
	return object(ns, name, itoa(g.step), app, strings.Join(tags, ","))
}

func (g *generator) next() op {
	g.step++
	k := g.src.Intn(genKeys)
	key := nsName(k%genNamespaces) + "/" + objName(k)
	switch g.src.Intn(16) {
	case 0, 1, 2, 3, 4:
		o := g.object(k)
		return op{fmt.Sprintf("Update(%s)", describe(o)), func(s cache.ThreadSafeStore) { s.Update(key, o) }}
	case 5, 6:
		o := g.object(k)
		return op{fmt.Sprintf("Add(%s)", describe(o)), func(s cache.ThreadSafeStore) { s.Add(key, o) }}
	case 7, 8:
		return op{fmt.Sprintf("Delete(%s)", key), func(s cache.ThreadSafeStore) { s.Delete(key) }}
	case 9:
		o := g.object(k)
		return op{fmt.Sprintf("DeleteWithObject(%s)", describe(o)), func(s cache.ThreadSafeStore) { s.DeleteWithObject(key, o) }}
	case 10:
		items := map[string]any{}
		for range g.src.Intn(genKeys) {
			j := g.src.Intn(genKeys)
			items[nsName(j%genNamespaces)+"/"+objName(j)] = g.object(j)
		}
		rv := itoa(g.step)
		return op{fmt.Sprintf("Replace(%s, %s)", describeMap(items), rv), func(s cache.ThreadSafeStore) { s.Replace(maps.Clone(items), rv) }}
	case 11, 12:
		return g.transaction()
	case 13:
		rv := itoa(g.step)
		return op{"Bookmark(" + rv + ")", func(s cache.ThreadSafeStore) { s.Bookmark(rv) }}
	case 14:
		return op{"AddIndexers(" + extraIndex + ")", func(s cache.ThreadSafeStore) {
			_ = s.AddIndexers(cache.Indexers{extraIndex: extraIndexFunc}) // the second time: a conflict, compared below
		}}
	default:
		return op{"Resync()", func(s cache.ThreadSafeStore) { _ = s.Resync() }}
	}
}

func (g *generator) transaction() op {
	var txns []cache.ThreadSafeStoreTransaction
	var descs []string
	for range 1 + g.src.Intn(4) {
		k := g.src.Intn(genKeys)
		o := g.object(k)
		typ := []cache.TransactionType{cache.TransactionTypeAdd, cache.TransactionTypeUpdate, cache.TransactionTypeDelete}[g.src.Intn(3)]
		txns = append(txns, txn(typ, o))
		descs = append(descs, string(typ)+" "+describe(o))
	}
	return op{"Transaction(" + strings.Join(descs, "; ") + ")", func(s cache.ThreadSafeStore) {
		transactionalOrNil(s).Transaction(slices.Clone(txns)...)
	}}
}

// transactionalOrNil asserts the transactional interface; a store without
// it makes the differential fail on its first transaction with a panic that
// names the type, which the trace then explains.
func transactionalOrNil(s cache.ThreadSafeStore) cache.ThreadSafeStoreWithTransaction {
	return s.(cache.ThreadSafeStoreWithTransaction)
}

func describeMap(items map[string]any) string {
	var parts []string
	for _, o := range items {
		parts = append(parts, describe(o))
	}
	slices.Sort(parts)
	return "[" + strings.Join(parts, " ") + "]"
}

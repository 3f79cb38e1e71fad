package linearize

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/anishathalye/porcupine"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
)

// Store is the part of client-go's cache.ThreadSafeStore the store
// histories call.
type Store interface {
	Add(key string, obj any)
	Update(key string, obj any)
	Delete(key string)
	Get(key string) (any, bool)
	List() []any
	ByIndex(indexName, indexedValue string) ([]any, error)
	Replace(items map[string]any, resourceVersion string)
}

// Few keys, so that writers and scans meet on them; versions are unique
// per history so that every read names the write it saw. An object's
// index value (its "color") is its version modulo storeColors, so most
// updates move the key between index values.
const (
	storeKeys   = 4
	storeColors = 3
	colorIndex  = "color"
)

// storeObj is a stored object: its key (0..storeKeys-1) and version.
type storeObj struct {
	key int
	ver int32
}

func storeKey(k int) string { return "k" + strconv.Itoa(k) }

func color(ver int32) int { return int(ver % storeColors) }

// StoreIndexers is the index the store histories query.
func StoreIndexers() cache.Indexers {
	return cache.Indexers{colorIndex: func(obj any) ([]string, error) {
		return []string{strconv.Itoa(color(obj.(*storeObj).ver))}, nil
	}}
}

type storeOp uint8

const (
	stWrite storeOp = iota // Add, Update, Delete (version 0)
	stGet
	stList
	stByIndex
	stReplace
	// per-key operations of the weaker models
	stKeyRead    // the key's version (0: absent), seen by Get or List
	stKeyIndexed // whether the key was among ByIndex(color)'s answer
)

type storeIn struct {
	op    storeOp
	key   int
	ver   int32 // written version (0 deletes)
	color int
	all   [storeKeys]int32 // Replace's content
}

// storeOut: a version per key seen, 0 for absent; bad for an answer no
// store state explains (a key twice, a malformed object).
type storeOut struct {
	vers [storeKeys]int32
	bad  bool
}

// storeState is the version stored under each key, 0 for none.
type storeState [storeKeys]int32

func (s storeState) colored(c int) storeState {
	for k, v := range s {
		if v != 0 && color(v) != c {
			s[k] = 0
		}
	}
	return s
}

// StoreModel is client-go's threadSafeMap as a sequential model: every
// scan is the content at one instant, Replace swaps it at one instant.
func StoreModel() porcupine.Model {
	return sequential(
		func(s storeState, i storeIn, o storeOut) (bool, storeState) {
			if o.bad {
				return false, s
			}
			switch i.op {
			case stWrite:
				s[i.key] = i.ver
				return true, s
			case stGet:
				return o.vers[i.key] == s[i.key], s
			case stList:
				return o.vers == s, s
			case stByIndex:
				return o.vers == s.colored(i.color), s
			case stReplace:
				return true, storeState(i.all)
			}
			return false, s
		},
		describeStoreOp,
	)
}

// StoreViews says which reads of a key the weaker store model orders with
// one another.
type StoreViews int

const (
	// OneView: every read of a key, Get or scan, sees the key's writes
	// in one order (registry Guarantees.OrderedUpdates), while a scan may
	// see different keys as of different instants (no SnapshotScans).
	OneView StoreViews = iota
	// SplitViews: Get, List, and ByIndex of each index value are views of
	// a key that may each see an update at its own instant (neither
	// OrderedUpdates nor SnapshotScans): while an update changes a key's
	// index values, a List may see the new object before a Get does, or a
	// ByIndex of the old value miss the key before a ByIndex of the new
	// value finds it. Each view is still ordered on its own.
	SplitViews
)

func (v StoreViews) String() string { return [...]string{"per-key", "per-key-view"}[v] }

// StorePerKeyModel is the weaker model for stores whose scans mix
// instants: each scan and each Replace is split into one operation per
// key, spanning the call's whole interval, and each key (and, with
// SplitViews, each view of it) is checked on its own — porcupine's
// partitioning. Replace stays atomic per key but not across keys.
func StorePerKeyModel(views StoreViews) porcupine.Model {
	nviews := 1
	if views == SplitViews {
		nviews = 2 + storeColors // Get, List, and each index value's ByIndex
	}
	m := sequential(
		func(s int32, i storeIn, o storeOut) (bool, int32) {
			if o.bad {
				return false, s
			}
			switch i.op {
			case stWrite:
				return true, i.ver
			case stKeyRead:
				return o.vers[i.key] == s, s
			case stKeyIndexed:
				if v := o.vers[i.key]; v != 0 {
					return v == s && color(v) == i.color, s
				}
				return s == 0 || color(s) != i.color, s
			}
			return false, s
		},
		describeStoreOp,
	)
	m.Partition = func(h []porcupine.Operation) [][]porcupine.Operation {
		parts := make([][]porcupine.Operation, storeKeys*nviews)
		put := func(op porcupine.Operation, k, view int, in storeIn, out storeOut) {
			op.Input, op.Output = in, out
			if view < 0 { // a write: every view of the key sees it
				for v := range nviews {
					parts[k*nviews+v] = append(parts[k*nviews+v], op)
				}
				return
			}
			parts[k*nviews+view%nviews] = append(parts[k*nviews+view%nviews], op)
		}
		for _, op := range h {
			i, o := op.Input.(storeIn), op.Output.(storeOut)
			for k := range storeKeys {
				switch i.op {
				case stWrite:
					if k == i.key {
						put(op, k, -1, i, o)
					}
				case stReplace:
					put(op, k, -1, storeIn{op: stWrite, key: k, ver: i.all[k]}, o)
				case stGet:
					if k == i.key {
						put(op, k, 0, storeIn{op: stKeyRead, key: k}, o)
					}
				case stList:
					put(op, k, 1, storeIn{op: stKeyRead, key: k}, o)
				case stByIndex:
					put(op, k, 2+i.color, storeIn{op: stKeyIndexed, key: k, color: i.color}, o)
				}
			}
		}
		return parts
	}
	return m
}

func describeStoreOp(i storeIn, o storeOut) string {
	switch i.op {
	case stWrite:
		if i.ver == 0 {
			return fmt.Sprintf("Delete(k%d)", i.key)
		}
		return fmt.Sprintf("Add/Update(k%d, v%d)", i.key, i.ver)
	case stGet, stKeyRead:
		return fmt.Sprintf("read(k%d) -> v%d", i.key, o.vers[i.key])
	case stList:
		return fmt.Sprintf("List() -> %v", o.vers)
	case stByIndex:
		return fmt.Sprintf("ByIndex(%d) -> %v", i.color, o.vers)
	case stKeyIndexed:
		return fmt.Sprintf("ByIndex(%d) has k%d -> v%d", i.color, i.key, o.vers[i.key])
	}
	return fmt.Sprintf("Replace(%v)", i.all)
}

type storeSession struct {
	s   Store
	ver atomic.Int32 // last version written
}

// seen turns a scan's answer into a version per key.
func seen(objs []any) storeOut {
	var o storeOut
	for _, obj := range objs {
		so, ok := obj.(*storeObj)
		if !ok || o.vers[so.key] != 0 {
			o.bad = true
			continue
		}
		o.vers[so.key] = so.ver
	}
	return o
}

func (s *storeSession) op(rng *rand.Rand, c int, _ *workerState, r *recorder) {
	k := rng.IntN(storeKeys)
	key := storeKey(k)
	switch n := rng.IntN(100); {
	case n < 30:
		v := s.ver.Add(1)
		obj := &storeObj{key: k, ver: v}
		r.call(c, storeIn{op: stWrite, key: k, ver: v}, false, func() any {
			if n < 15 {
				s.s.Add(key, obj)
			} else {
				s.s.Update(key, obj)
			}
			return storeOut{}
		})
	case n < 40:
		r.call(c, storeIn{op: stWrite, key: k}, false, func() any { s.s.Delete(key); return storeOut{} })
	case n < 65:
		r.call(c, storeIn{op: stGet, key: k}, false, func() any {
			var o storeOut
			if obj, ok := s.s.Get(key); ok {
				so, isObj := obj.(*storeObj)
				o.bad = !isObj || so.key != k
				if isObj {
					o.vers[k] = so.ver
				}
			}
			return o
		})
	case n < 77:
		r.call(c, storeIn{op: stList}, false, func() any { return seen(s.s.List()) })
	case n < 92:
		col := rng.IntN(storeColors)
		r.call(c, storeIn{op: stByIndex, color: col}, false, func() any {
			objs, err := s.s.ByIndex(colorIndex, strconv.Itoa(col))
			o := seen(objs)
			o.bad = o.bad || err != nil
			return o
		})
	default:
		in := storeIn{op: stReplace}
		items := map[string]any{}
		for k := range storeKeys {
			if rng.IntN(3) > 0 {
				in.all[k] = s.ver.Add(1)
				items[storeKey(k)] = &storeObj{key: k, ver: in.all[k]}
			}
		}
		r.call(c, in, false, func() any { s.s.Replace(items, ""); return storeOut{} })
	}
}

// feed is never called: no store call blocks.
func (s *storeSession) feed(int, *recorder) {}

func (s *storeSession) close() {}

// CheckStore checks the stores newS builds against the snapshot model, or
// with relaxed against the per-key model with the given views.
func CheckStore(cfg Config, impl string, relaxed bool, views StoreViews, newS func(cache.Indexers) Store) Result {
	m, name := StoreModel(), "snapshot"
	if relaxed {
		m, name = StorePerKeyModel(views), views.String()
	}
	return check(cfg, "store", impl, name, m, func() session {
		return &storeSession{s: newS(StoreIndexers())}
	})
}

// CheckStores checks every store in the registry, client-go's included,
// each against the model its declared guarantees allow.
func CheckStores(cfg Config) []Result {
	var out []Result
	for _, e := range registry.Stores() {
		views := OneView
		if !e.Guarantees.OrderedUpdates {
			views = SplitViews
		}
		relaxed := !e.Guarantees.SnapshotScans
		newS := func(ix cache.Indexers) Store { return e.New(ix) }
		out = append(out, strictToo(CheckStore(cfg, e.Name, relaxed, views, newS), relaxed, func() Result {
			return CheckStore(cfg, e.Name, false, OneView, newS)
		})...)
	}
	return out
}

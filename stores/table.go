package stores

import (
	"cmp"
	"hash/maphash"
	"maps"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// table is the single-writer indexed map behind Mutex and each shard of
// Sharded. It is not safe for concurrent use: its owner locks around it.
//
// Keys and objects live in two dense arrays indexed by slot (keyIndex maps a
// key to its slot); Delete moves the last slot into the hole, so every slot
// is live and scans are sequential. Each index is a column (see column).
//
// Objects sit apart from keys because ByIndex, the hot read of listers,
// gathers objects only: at 16 bytes a slot, four to a cache line, the
// array it jumps around in is half the size it would be with the keys
// interleaved (measured with GC pressure removed: the gather about a
// quarter faster; Get unchanged).
type table struct {
	ids  keyIndex
	keys []string
	objs []any
	cols []*column // sorted by name

	scratch [][]string // per column: the values being written, reused
}

// newTable returns an empty table whose key index, keys and objects are
// sized for n keys (its index columns grow as they fill), whose key index hashes
// with seed (sizing it later would throw the first index away). The
// shards of one Sharded generation share a seed, so the hash that picks a
// key's shard also finds it in the shard (see putHashed).
func newTable(indexers cache.Indexers, seed maphash.Seed, n int) *table {
	t := &table{ids: newKeyIndex(seed, n)}
	if n > 0 {
		t.keys, t.objs = make([]string, 0, n), make([]any, 0, n)
	}
	t.cols = buildColumns(indexers, 0)
	t.scratch = make([][]string, len(t.cols))
	return t
}

// buildColumns returns empty columns for indexers, sorted by name.
func buildColumns(indexers cache.Indexers, slots int) []*column {
	cols := make([]*column, 0, len(indexers))
	for _, name := range slices.Sorted(maps.Keys(indexers)) {
		cols = append(cols, newColumn(name, indexers[name], slots))
	}
	return cols
}

func (t *table) len() int { return len(t.keys) }

// col returns the column called name, or nil.
func (t *table) col(name string) *column { return findCol(t.cols, name) }

// put stores obj under key. Every IndexFunc runs before anything changes, so
// an error leaves the table exactly as it was.
func (t *table) put(key string, obj any) error { return t.putHashed(key, t.ids.hash(key), obj) }

// putHashed is put for a key whose hash (keyIndex.hash) the caller has.
func (t *table) putHashed(key string, h uint32, obj any) error {
	if err := evalAll(t.cols, t.scratch, key, obj); err != nil {
		return err
	}
	_, s := t.ids.findHashed(key, h, t.keys)
	if s < 0 {
		s = int32(len(t.keys))
		t.keys = append(t.keys, key)
		t.objs = append(t.objs, nil)
		t.ids.insertHashed(h, s) // a new key: hashed once for both steps
		for _, c := range t.cols {
			c.grow()
		}
	}
	t.objs[s] = obj
	for i, c := range t.cols {
		c.set(s, t.scratch[i])
	}
	clear(t.scratch) // do not pin the IndexFuncs' results
	return nil
}

// remove deletes key; a missing key is a no-op.
func (t *table) remove(key string) { t.removeHashed(key, t.ids.hash(key)) }

// removeHashed is remove for a key whose hash the caller has.
func (t *table) removeHashed(key string, h uint32) {
	b, s := t.ids.findHashed(key, h, t.keys)
	if s < 0 {
		return
	}
	for _, c := range t.cols {
		c.clear(s)
	}
	t.ids.deleteAt(b)
	last := int32(len(t.keys) - 1)
	if s != last {
		moved, _ := t.ids.find(t.keys[last], t.keys)
		t.ids.setSlot(moved, s)
		t.keys[s], t.objs[s] = t.keys[last], t.objs[last]
		for _, c := range t.cols {
			c.move(last, s)
		}
	}
	t.keys[last], t.objs[last] = "", nil
	t.keys, t.objs = t.keys[:last], t.objs[:last]
	for _, c := range t.cols {
		c.truncate()
	}
}

func (t *table) get(key string) (any, bool) { return t.getHashed(key, t.ids.hash(key)) }

// getHashed is get for a key whose hash the caller has.
func (t *table) getHashed(key string, h uint32) (any, bool) {
	if _, s := t.ids.findHashed(key, h, t.keys); s >= 0 {
		return t.objs[s], true
	}
	return nil, false
}

// fill builds the table's content from items (the table must be empty,
// best made by newTable for len(items) keys);
// on an IndexFunc error the table is left half-filled and must be dropped.
func (t *table) fill(items map[string]any) error {
	for key, obj := range items {
		if err := t.put(key, obj); err != nil {
			return err
		}
	}
	return nil
}

// indexed returns new columns for indexers covering every current slot, or
// the first IndexFunc error; the table itself is not changed.
func (t *table) indexed(indexers cache.Indexers) ([]*column, error) {
	cols := buildColumns(indexers, len(t.keys))
	for _, c := range cols {
		for s, key := range t.keys {
			vs, err := c.values(key, t.objs[s])
			if err != nil {
				return nil, err
			}
			c.set(int32(s), vs)
		}
	}
	return cols, nil
}

// attach adds columns built by indexed.
func (t *table) attach(cols []*column) {
	t.cols = append(t.cols, cols...)
	slices.SortFunc(t.cols, func(a, b *column) int { return cmp.Compare(a.name, b.name) })
	t.scratch = make([][]string, len(t.cols))
}

func (t *table) appendList(dst []any) []any {
	return append(dst, t.objs...)
}

func (t *table) appendKeys(dst []string) []string {
	return append(dst, t.keys...)
}

// appendSlots appends the objects in slots (a column's slotsOf), growing
// dst once. (Sharded sizes its merge of shards in a first pass and looks
// slots up again.)
func (t *table) appendSlots(dst []any, slots []int32) []any {
	n := len(dst)
	dst = slices.Grow(dst, len(slots))[:n+len(slots)]
	out := dst[n:]
	objs := t.objs
	for i, s := range slots {
		out[i] = objs[s]
	}
	return dst
}

// appendSlotKeys appends the keys in slots.
func (t *table) appendSlotKeys(dst []string, slots []int32) []string {
	for _, s := range slots {
		dst = append(dst, t.keys[s])
	}
	return dst
}

// appendIndex appends the objects sharing at least one of values in c, each
// once.
func (t *table) appendIndex(dst []any, c *column, values []string) []any {
	if len(values) == 1 {
		return t.appendSlots(dst, c.slotsOf(values[0]))
	}
	seen := make(map[int32]struct{})
	for _, value := range values {
		for _, s := range c.slotsOf(value) {
			if _, dup := seen[s]; !dup {
				seen[s] = struct{}{}
				dst = append(dst, t.objs[s])
			}
		}
	}
	return dst
}

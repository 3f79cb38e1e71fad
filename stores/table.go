package stores

import (
	"cmp"
	"maps"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// table is the single-writer indexed map behind Mutex and each shard of
// Sharded. It is not safe for concurrent use: its owner locks around it.
//
// Objects live in dense slots (keys and objs are parallel slices, ids maps
// a key to its slot); Delete moves the last slot into the hole, so List is a
// copy of objs and every slot is live. Each index is a column (see column).
type table struct {
	ids  map[string]int32
	keys []string
	objs []any
	cols []*column // sorted by name

	scratch [][]string // per column: the values being written, reused
}

func newTable(indexers cache.Indexers) *table {
	t := &table{ids: make(map[string]int32)}
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

// col returns the column called name, or nil. A linear scan beats a map
// for the handful of indexers an informer has.
func (t *table) col(name string) *column {
	for _, c := range t.cols {
		if c.name == name {
			return c
		}
	}
	return nil
}

// put stores obj under key. Every IndexFunc runs before anything changes, so
// an error leaves the table exactly as it was.
func (t *table) put(key string, obj any) error {
	for i, c := range t.cols {
		vs, err := c.values(key, obj)
		if err != nil {
			clear(t.scratch[:i])
			return err
		}
		t.scratch[i] = vs
	}
	s, ok := t.ids[key]
	if !ok {
		s = int32(len(t.keys))
		t.ids[key] = s
		t.keys = append(t.keys, key)
		t.objs = append(t.objs, nil)
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
func (t *table) remove(key string) {
	s, ok := t.ids[key]
	if !ok {
		return
	}
	for _, c := range t.cols {
		c.clear(s)
	}
	delete(t.ids, key)
	last := int32(len(t.keys) - 1)
	if s != last {
		t.keys[s], t.objs[s] = t.keys[last], t.objs[last]
		t.ids[t.keys[s]] = s
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

func (t *table) get(key string) (any, bool) {
	if s, ok := t.ids[key]; ok {
		return t.objs[s], true
	}
	return nil, false
}

// fill builds the table's content from items (the table must be empty);
// on an IndexFunc error the table is left half-filled and must be dropped.
func (t *table) fill(items map[string]any) error {
	t.ids = make(map[string]int32, len(items))
	t.keys = make([]string, 0, len(items))
	t.objs = make([]any, 0, len(items))
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
		for s, obj := range t.objs {
			vs, err := c.values(t.keys[s], obj)
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

func (t *table) appendList(dst []any) []any       { return append(dst, t.objs...) }
func (t *table) appendKeys(dst []string) []string { return append(dst, t.keys...) }

// appendByIndex appends the objects whose value in c is value.
func (t *table) appendByIndex(dst []any, c *column, value string) []any {
	for _, s := range c.slotsOf(value) {
		dst = append(dst, t.objs[s])
	}
	return dst
}

// appendIndexKeys appends the keys whose value in c is value.
func (t *table) appendIndexKeys(dst []string, c *column, value string) []string {
	for _, s := range c.slotsOf(value) {
		dst = append(dst, t.keys[s])
	}
	return dst
}

// appendIndex appends the objects sharing at least one of values in c, each
// once.
func (t *table) appendIndex(dst []any, c *column, values []string) []any {
	if len(values) == 1 {
		return t.appendByIndex(dst, c, values[0])
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

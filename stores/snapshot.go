package stores

import (
	"cmp"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/cacheline"
)

// Snapshot is a store whose readers work on immutable versions (MVCC):
// every read loads the current version with one atomic pointer load and
// answers from it alone, so a scan is the store's content at one instant,
// however long it takes, and no writer ever waits for it. Writers serialize
// on one mutex, which readers never take, build the next version by path
// copying persistent maps (see champ), and publish it with one pointer
// store. It keeps every guarantee client-go's threadSafeMap keeps —
// snapshot scans, atomic transactions, ordered updates — while its scans,
// unlike client-go's and Mutex's, never hold up the writer.
//
// A version is a persistent map key → object, and per index a persistent
// map value → persistent map key → object, so that ByIndex is a scan like
// List rather than a lookup per key. An update copies one path of the
// object map and one of each of its values' maps: about fifteen small
// nodes, never a whole map. A Transaction, a
// Replace and AddIndexers build one version each (nodes created within them
// are mutated in place until they are published), so a reader sees all of
// one or none of it. Replace and AddIndexers, which build whole maps, build
// them bottom up from the full list of entries, each node allocated once
// at its final size, rather than by a put per object.
//
// Like client-go's threadSafeMap, the writer finds the index values an
// object is leaving by calling the IndexFuncs on the stored object rather
// than keeping them per key: that costs an IndexFunc call per index per
// update, and saves the memory. Where client-go would panic (the IndexFunc
// fails on the stored object) or leave a stale entry behind (it names a
// value the key is not under), the writer removes the key from every value
// of that index by a scan instead. As in client-go, an IndexFunc that
// changes its answer for a stored object to exactly the new object's
// values leaves the key under its old ones: IndexFuncs must be pure.
//
// The price, against Mutex: about twenty small allocations per write (the
// copied paths, one per node or two where a node holds both entries and
// subtrees, and the published version; old versions become garbage as
// soon as no reader holds them), more memory per object (each object sits
// in the object map and in one map per index), and a Get that walks a trie
// instead of indexing an array. DESIGN.md ("The snapshot store") has the
// measurements, and why the persistent map is written here rather than
// taken from go-immutable-radix or tidwall/btree.
type Snapshot struct {
	// cur is the one word every reader loads; the padding keeps the
	// writers' lock off its cache line.
	cur atomic.Pointer[snapState]
	_   [cacheline.Size]byte

	mu   sync.Mutex // serializes writers; readers never take it
	w    snapTxn    // the writer's working state, reused under mu
	opts options
}

var _ Store = (*Snapshot)(nil)

// snapState is one published version; nothing reachable from it changes.
type snapState struct {
	items    champ[snapItem] // key → object
	cols     []snapCol       // one per indexer, sorted by name
	indexers cache.Indexers
	rv       string

	// colsBuf holds cols when there are few, so that publishing a version
	// is one allocation.
	colsBuf [snapInlineCols]snapCol
}

// snapInlineCols is how many indexes a version holds without a second
// allocation: informers index by namespace, and seldom by more than a few
// other values.
const snapInlineCols = 4

// snapItem is an object and its key, as the object map holds them.
type snapItem struct {
	key string
	obj any
}

func (e snapItem) champKey() string { return e.key }

// snapCol is one index of a version. The IndexFunc (with the writer's
// buffer) is shared by every version; values is the version's own.
type snapCol struct {
	*indexFn
	byValue champ[snapValue] // value → the keys having it
}

// snapValue is one value of an index and the objects having it.
type snapValue struct {
	value   string
	members champ[snapItem] // key → object, as in the object map
}

func (v snapValue) champKey() string { return v.value }

// NewSnapshot returns an empty Snapshot store: every guarantee of
// client-go's, and readers that never hold up the writer. It fails only
// when opts sets Shards, which a Snapshot store has no use for.
func NewSnapshot(opts Options) (*Snapshot, error) {
	_, kept, err := opts.check("NewSnapshot", false)
	if err != nil {
		return nil, err
	}
	indexers := maps.Clone(opts.Indexers)
	s := &Snapshot{opts: kept}
	s.cur.Store(&snapState{cols: newSnapCols(nil, indexers), indexers: indexers})
	return s, nil
}

// newSnapCols returns cols plus empty columns for indexers, sorted by name.
func newSnapCols(cols []snapCol, indexers cache.Indexers) []snapCol {
	out := slices.Clone(cols)
	for name, fn := range indexers {
		f := newIndexFn(name, fn)
		out = append(out, snapCol{indexFn: &f})
	}
	slices.SortFunc(out, func(a, b snapCol) int { return cmp.Compare(a.name, b.name) })
	return out
}

// snapTxn is the writer's view of the version being built: a copy of the
// current one whose maps it changes within its edit.
type snapTxn struct {
	next snapState
	edit uint64    // ids of edits so far; the current one's
	cols []snapCol // next.cols while the edit runs: the writer's own, reused

	// Per column, the values being written and those being left. The
	// one-element arrays hold the namespace index's value, which an
	// indexFn returns in a buffer the next call overwrites.
	newVals, oldVals [][]string
	newOne, oldOne   [][1]string
}

// begin starts an edit on top of cur (the caller holds the writers' mutex).
func (t *snapTxn) begin(cur *snapState) {
	t.next = *cur
	t.cols = append(t.cols[:0], cur.cols...)
	t.next.cols = t.cols
	t.edit++
	if n := len(cur.cols); len(t.newVals) != n {
		t.newVals, t.oldVals = make([][]string, n), make([][]string, n)
		t.newOne, t.oldOne = make([][1]string, n), make([][1]string, n)
	}
}

// publish makes the edit's version the current one, with columns of its
// own (the edit's are the writer's, reused by the next edit).
func (s *Snapshot) publish() {
	st := new(snapState)
	*st = s.w.next
	if len(st.cols) <= len(st.colsBuf) {
		st.cols = st.colsBuf[:copy(st.colsBuf[:], st.cols)]
	} else {
		st.cols = slices.Clone(st.cols)
	}
	s.w.abandon()
	s.cur.Store(st)
}

// abandon drops the edit's references, so that the writer's idle state
// keeps no version's maps alive.
func (t *snapTxn) abandon() {
	t.next = snapState{}
	clear(t.cols)
}

// eval returns column i's values for obj stored under key, copied out of
// the indexFn's buffer into one (which the caller owns) when they are in it.
func (t *snapTxn) eval(i int, key string, obj any, one *[1]string) ([]string, error) {
	c := t.next.cols[i]
	vs, err := c.values(key, obj)
	if err == nil && c.namespace && len(vs) == 1 {
		one[0] = vs[0]
		vs = one[:]
	}
	return vs, err
}

// put stores obj under key in the edit. Every IndexFunc for obj runs
// first, so an error changes nothing.
func (t *snapTxn) put(key string, obj any) error {
	for i := range t.next.cols {
		vs, err := t.eval(i, key, obj, &t.newOne[i])
		if err != nil {
			clear(t.newVals)
			return err
		}
		t.newVals[i] = vs
	}
	defer clear(t.newVals)
	h := champHash(key)
	old, replaced := t.next.items.put(t.edit, h, snapItem{key: key, obj: obj})
	item := snapItem{key: key, obj: obj}
	for i := range t.next.cols {
		c := &t.next.cols[i]
		if replaced {
			leaving, known := t.previous(i, old)
			if !known || (!sameValues(leaving, t.newVals[i]) && !t.leave(c, h, key, leaving, t.newVals[i])) {
				t.leaveAll(c, h, key)
			}
		}
		t.join(c, h, item, t.newVals[i])
	}
	clear(t.oldVals)
	return nil
}

// remove deletes key in the edit; a missing key is a no-op.
func (t *snapTxn) remove(key string) {
	h := champHash(key)
	old, removed := t.next.items.remove(t.edit, h, key)
	if !removed {
		return
	}
	for i := range t.next.cols {
		leaving, known := t.previous(i, old)
		if known && len(leaving) == 0 {
			continue
		}
		if c := &t.next.cols[i]; !known || !t.leave(c, h, key, leaving, nil) {
			t.leaveAll(c, h, key)
		}
	}
	clear(t.oldVals)
}

// previous returns column i's values for the object old held, as the
// IndexFunc gives them now, and false if it fails.
func (t *snapTxn) previous(i int, old snapItem) ([]string, bool) {
	vs, err := t.eval(i, old.key, old.obj, &t.oldOne[i])
	if err != nil {
		return nil, false
	}
	t.oldVals[i] = vs
	return vs, true
}

// sameValues reports whether a and b hold the same set of values.
func sameValues(a, b []string) bool {
	if len(a) == 1 && len(b) == 1 {
		return a[0] == b[0] // the rule: one value per index
	}
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	for _, v := range b {
		if !slices.Contains(a, v) {
			return false
		}
	}
	return true
}

// leave removes key (hash h) from c's values in leaving that are not in
// staying, forgetting values left without keys. It reports false, having
// removed what it found, when some value in leaving did not hold key: the
// IndexFunc then answers differently than when the object was stored, and
// the caller must find the key's values by leaveAll.
func (t *snapTxn) leave(c *snapCol, h uint64, key string, leaving, staying []string) bool {
	all := true
	for j, value := range leaving {
		if slices.Contains(staying, value) || slices.Contains(leaving[:j], value) {
			continue
		}
		hv := champHash(value)
		sv, ok := c.byValue.get(hv, value)
		if ok {
			_, ok = sv.members.remove(t.edit, h, key)
		}
		if !ok {
			all = false
			continue
		}
		if sv.members.n == 0 {
			c.byValue.remove(t.edit, hv, value)
		} else {
			c.byValue.put(t.edit, hv, sv)
		}
	}
	return all
}

// leaveAll removes key from every value of c: the way out when the
// IndexFunc no longer tells which values the stored object had. It scans
// the index's values, once per such write.
func (t *snapTxn) leaveAll(c *snapCol, h uint64, key string) {
	var holding []string
	c.byValue.all(func(sv snapValue) bool {
		if _, ok := sv.members.get(h, key); ok {
			holding = append(holding, sv.value)
		}
		return true
	})
	t.leave(c, h, key, holding, nil) // each holds key: cannot report false
}

// join stores item (its key's hash is h) in each of c's values in joining,
// replacing the key's previous object there.
func (t *snapTxn) join(c *snapCol, h uint64, item snapItem, joining []string) {
	for j, value := range joining {
		if slices.Contains(joining[:j], value) {
			continue
		}
		hv := champHash(value)
		sv, ok := c.byValue.get(hv, value)
		if !ok {
			sv = snapValue{value: value}
		}
		sv.members.put(t.edit, h, item)
		c.byValue.put(t.edit, hv, sv)
	}
}

// write runs f as one edit under the writers' mutex and publishes its
// version unless f fails.
func (s *Snapshot) write(f func(t *snapTxn) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.begin(s.cur.Load())
	if err := f(&s.w); err != nil {
		s.w.abandon()
		return err
	}
	s.publish()
	return nil
}

// Add is Update: client-go makes no difference between the two.
func (s *Snapshot) Add(key string, obj any) { s.opts.report(s.UpdateChecked(key, obj)) }

// Update stores obj under key; an IndexFunc error goes to the error handler
// and leaves the store unchanged.
func (s *Snapshot) Update(key string, obj any) { s.opts.report(s.UpdateChecked(key, obj)) }

// UpdateChecked implements Store.
func (s *Snapshot) UpdateChecked(key string, obj any) error {
	rv, hasRV := objectRV(obj)
	return s.write(func(t *snapTxn) error {
		if err := t.put(key, obj); err != nil {
			return err
		}
		if hasRV {
			t.next.rv = rv
		}
		return nil
	})
}

// Delete removes key without touching the resource version.
func (s *Snapshot) Delete(key string) { s.DeleteWithObject(key, nil) }

// DeleteWithObject removes key and, when obj carries ObjectMeta, moves the
// resource version to obj's.
func (s *Snapshot) DeleteWithObject(key string, obj any) {
	rv, hasRV := objectRV(obj)
	_ = s.write(func(t *snapTxn) error {
		t.remove(key)
		if hasRV {
			t.next.rv = rv
		}
		return nil
	})
}

// Get returns the object stored under key.
func (s *Snapshot) Get(key string) (any, bool) {
	e, ok := s.cur.Load().items.get(champHash(key), key)
	return e.obj, ok
}

// List returns every stored object, as of one instant.
func (s *Snapshot) List() []any { return objects(s.cur.Load().items) }

// ListKeys returns every stored key, as of one instant.
func (s *Snapshot) ListKeys() []string { return keys(s.cur.Load().items) }

// Replace swaps the whole content for items; see ReplaceChecked.
func (s *Snapshot) Replace(items map[string]any, resourceVersion string) {
	s.opts.report(s.ReplaceChecked(items, resourceVersion))
}

// ReplaceChecked implements Store: the new content is built as one edit,
// in bulk (each map built whole, see buildChamp), and published once, so
// readers see the old content or the new, never a mix; an IndexFunc error
// abandons the edit, changing nothing.
func (s *Snapshot) ReplaceChecked(items map[string]any, resourceVersion string) error {
	return s.write(func(t *snapTxn) error {
		es := make([]hashed[snapItem], 0, len(items))
		for key, obj := range items {
			es = append(es, hashed[snapItem]{champHash(key), snapItem{key: key, obj: obj}})
		}
		for i := range t.next.cols {
			if err := t.buildCol(&t.next.cols[i], es); err != nil {
				return err
			}
		}
		t.next.items = buildChamp(t.edit, es)
		t.next.rv = resourceVersion
		return nil
	})
}

// valueOf says that item es[item] of a bulk build has value group.
// Thirty-two bits each: a build of 2³¹ objects would need a terabyte.
type valueOf struct{ group, item int32 }

// buildCol replaces c's values with those of the objects in es, built in
// bulk (see buildChamp) within the edit: every IndexFunc runs first, then
// each value's members and the map of values are built once each, where
// puts would grow them an object at a time. It fails, leaving c as it was,
// at the first IndexFunc error.
func (t *snapTxn) buildCol(c *snapCol, es []hashed[snapItem]) error {
	group := make(map[string]int32)
	var values []string
	var counts []int
	posts := make([]valueOf, 0, len(es))
	for j := range es {
		vs, err := c.values(es[j].e.key, es[j].e.obj)
		if err != nil {
			return err
		}
		for k, v := range vs {
			if slices.Contains(vs[:k], v) {
				continue
			}
			g, ok := group[v]
			if !ok {
				g = int32(len(values))
				group[v] = g
				values = append(values, v)
				counts = append(counts, 0)
			}
			counts[g]++
			posts = append(posts, valueOf{group: g, item: int32(j)})
		}
	}
	// Lay the members out value by value, then build each value's map
	// over its stretch.
	next := make([]int, len(values))
	at := 0
	for g, n := range counts {
		next[g] = at
		at += n
	}
	members := make([]hashed[snapItem], len(posts))
	for _, p := range posts {
		members[next[p.group]] = es[p.item]
		next[p.group]++
	}
	svs := make([]hashed[snapValue], len(values))
	at = 0
	for g, v := range values {
		m := buildChamp(t.edit, members[at:at+counts[g]])
		svs[g] = hashed[snapValue]{champHash(v), snapValue{value: v, members: m}}
		at += counts[g]
	}
	c.byValue = buildChamp(t.edit, svs)
	return nil
}

// value returns the members of value in index name of st.
func (st *snapState) value(name, value string) (champ[snapItem], error) {
	c := findCol(st.cols, name)
	if c.indexFn == nil {
		return champ[snapItem]{}, errUnknownIndex(name)
	}
	sv, _ := c.byValue.get(champHash(value), value)
	return sv.members, nil
}

// objects returns the objects of m, in a slice sized once.
func objects(m champ[snapItem]) []any {
	out := make([]any, 0, m.n)
	m.runs(func(run []snapItem) {
		for _, e := range run {
			out = append(out, e.obj)
		}
	})
	return out
}

// keys returns the keys of m, in a slice sized once.
func keys(m champ[snapItem]) []string {
	out := make([]string, 0, m.n)
	m.runs(func(run []snapItem) {
		for _, e := range run {
			out = append(out, e.key)
		}
	})
	return out
}

// Index returns the objects sharing at least one indexName value with obj.
func (s *Snapshot) Index(indexName string, obj any) ([]any, error) {
	st := s.cur.Load()
	c := findCol(st.cols, indexName)
	if c.indexFn == nil {
		return nil, errUnknownIndex(indexName)
	}
	values, err := c.fn(obj)
	if err != nil {
		return nil, err
	}
	if len(values) == 1 {
		m, _ := st.value(indexName, values[0])
		return objects(m), nil
	}
	out := []any{}
	seen := make(map[string]bool)
	for _, value := range values {
		m, _ := st.value(indexName, value)
		m.all(func(e snapItem) bool {
			if !seen[e.key] {
				seen[e.key] = true
				out = append(out, e.obj)
			}
			return true
		})
	}
	return out, nil
}

// IndexKeys returns the keys whose indexName values include indexedValue.
func (s *Snapshot) IndexKeys(indexName, indexedValue string) ([]string, error) {
	m, err := s.cur.Load().value(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return keys(m), nil
}

// ByIndex returns the objects whose indexName values include indexedValue.
func (s *Snapshot) ByIndex(indexName, indexedValue string) ([]any, error) {
	m, err := s.cur.Load().value(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return objects(m), nil
}

// ListIndexFuncValues returns the values of indexName that have at least one
// object; empty for an unknown index.
func (s *Snapshot) ListIndexFuncValues(indexName string) []string {
	c := findCol(s.cur.Load().cols, indexName)
	if c.indexFn == nil {
		return []string{}
	}
	out := make([]string, 0, c.byValue.n)
	c.byValue.all(func(sv snapValue) bool {
		out = append(out, sv.value)
		return true
	})
	return out
}

// GetIndexers returns a copy of the registered indexers.
func (s *Snapshot) GetIndexers() cache.Indexers { return maps.Clone(s.cur.Load().indexers) }

// AddIndexers registers more indexers and indexes the existing items with
// them, publishing the result as one version; a name conflict or an
// IndexFunc error changes nothing.
func (s *Snapshot) AddIndexers(newIndexers cache.Indexers) error {
	return s.write(func(t *snapTxn) error {
		if err := checkNewIndexers(t.next.indexers, newIndexers, t.next.items.n, &s.opts); err != nil {
			return err
		}
		t.next.cols = newSnapCols(t.next.cols, newIndexers)
		es := make([]hashed[snapItem], 0, t.next.items.n)
		t.next.items.runs(func(run []snapItem) {
			for _, e := range run {
				es = append(es, hashed[snapItem]{champHash(e.key), e})
			}
		})
		for i := range t.next.cols {
			if _, added := newIndexers[t.next.cols[i].name]; added {
				if err := t.buildCol(&t.next.cols[i], es); err != nil {
					return err
				}
			}
		}
		t.next.indexers = mergeIndexers(t.next.indexers, newIndexers)
		return nil
	})
}

// Resync is a no-op, as in client-go.
func (s *Snapshot) Resync() error { return nil }

// Bookmark records rv as the latest resource version seen.
func (s *Snapshot) Bookmark(rv string) {
	_ = s.write(func(t *snapTxn) error {
		t.next.rv = rv
		return nil
	})
}

// LastStoreSyncResourceVersion returns the latest resource version seen (""
// unless client-go's AtomicFIFO feature gate is on, as in client-go).
func (s *Snapshot) LastStoreSyncResourceVersion() string {
	if !rvVisible() {
		return ""
	}
	return s.cur.Load().rv
}

// Transaction applies txns as one version; see TransactionChecked.
func (s *Snapshot) Transaction(txns ...cache.ThreadSafeStoreTransaction) {
	s.opts.reportTxn(s.TransactionChecked(txns...))
}

// TransactionChecked implements Store: txns are applied in order to one
// edit, published once, so readers see all of them or none.
func (s *Snapshot) TransactionChecked(txns ...cache.ThreadSafeStoreTransaction) *cache.TransactionError {
	var terr *cache.TransactionError
	_ = s.write(func(t *snapTxn) error {
		var rv string
		var ok bool
		terr, rv, ok = applyTransactions(t, txns)
		if ok {
			t.next.rv = rv
		}
		return nil
	})
	return terr
}

package stores

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"
)

// LockFree is a store whose readers never lock: Get, List, ListKeys,
// ByIndex, Index, IndexKeys and ListIndexFuncValues only load atomic
// pointers, so neither a writer nor another reader can make them wait, and
// no scan, however long, delays a writer. Writers serialize on one mutex,
// which readers never touch.
//
// Design, and why:
//   - Every write publishes a new immutable version (key, object). A reader
//     therefore always sees a key with an object that was stored under it.
//   - Key lookup is an lfMap (key → version): open addressing over atomic
//     slots, lock-free and allocation-free for readers, about as fast as a
//     Go map. The runtime's sync.Map (a lock-free hash-trie since Go 1.24)
//     measured several times slower for Get; a map built for concurrent
//     writers (xsync) buys nothing when writers serialize anyway.
//   - Each index value's members, and the list of all objects, is a posting:
//     slots of atomic version pointers with a published length (see
//     posting). The writer appends, tombstones, or replaces a version in the
//     slot it already holds, so scans never see a member twice and never
//     skip one present throughout; an update that keeps an object's index
//     values (the common informer update) is an in-place slot store, not a
//     copy of the list. A version sits only in postings whose value its
//     object has, so every ByIndex answer is consistent per key.
//   - Replace builds a whole new generation aside and publishes it with one
//     pointer store: readers see the old content or the new, never a mix.
//     AddIndexers publishes a generation with more indexes likewise.
//
// The price: one or two allocations per write and several times the memory
// of Mutex per object, and a Transaction's writes become visible one by one
// (Guarantees.AtomicTransactions is false).
type LockFree struct {
	mu    sync.Mutex // serializes writers; readers never take it
	state atomic.Pointer[lfState]
	rv    atomic.Pointer[string]
	opts  options
}

// lfState is one generation of a LockFree store.
type lfState struct {
	// Read by readers.
	items    *lfMap[version, *version]
	all      *posting // every current version
	cols     []*lfCol // never mutated: AddIndexers publishes a new state
	indexers cache.Indexers

	// Writer-only, shared with the states AddIndexers derives.
	entries map[string]*lfEntry
	scratch [][]string
}

// lfCol is one index: value → posting of the versions having that value.
type lfCol struct {
	indexFn
	postings *lfMap[posting, *posting] // value → members
}

func newLFCol(name string, fn cache.IndexFunc) *lfCol {
	return &lfCol{indexFn: newIndexFn(name, fn), postings: newLFMap[posting](0)}
}

// lfEntry is the writer's bookkeeping for one key: its current version and
// where that version sits.
type lfEntry struct {
	v      *version
	allPos int32
	marks  []lfMark
}

// lfMark is one membership: column, posting and slot.
type lfMark struct {
	p   *posting
	col int32
	pos int32
}

var (
	_ cache.ThreadSafeStore                = (*LockFree)(nil)
	_ cache.ThreadSafeStoreWithTransaction = (*LockFree)(nil)
	_ Store                                = (*LockFree)(nil)
)

// NewLockFree returns an empty store indexed by indexers (which it copies).
func NewLockFree(indexers cache.Indexers, opts ...Option) *LockFree {
	s := &LockFree{opts: newOptions(opts)}
	s.state.Store(newLFState(maps.Clone(indexers), 0))
	empty := ""
	s.rv.Store(&empty)
	return s
}

func newLFState(indexers cache.Indexers, size int) *lfState {
	st := &lfState{
		items:    newLFMap[version](size),
		all:      newPosting("", size),
		indexers: indexers,
		entries:  make(map[string]*lfEntry, size),
	}
	for _, name := range slices.Sorted(maps.Keys(indexers)) {
		st.cols = append(st.cols, newLFCol(name, indexers[name]))
	}
	st.scratch = make([][]string, len(st.cols))
	return st
}

func (st *lfState) col(name string) *lfCol { return findCol(st.cols, name) }

// put stores obj under key (writer only). Every IndexFunc runs first, so an
// error changes nothing.
func (st *lfState) put(key string, obj any) error {
	if err := evalAll(st.cols, st.scratch, key, obj); err != nil {
		return err
	}
	defer clear(st.scratch)
	v := &version{key: key, obj: obj}
	e := st.entries[key]
	if e == nil {
		e = &lfEntry{v: v}
		st.entries[key] = e
		e.allPos = st.push(st.all, v)
		for i, c := range st.cols {
			st.join(e, int32(i), c, st.scratch[i])
		}
		st.items.put(v)
		return nil
	}
	e.v = v
	st.all.set(e.allPos, v)
	for i, c := range st.cols {
		if e.has(int32(i), st.scratch[i]) {
			for _, m := range e.marks {
				if m.col == int32(i) {
					m.p.set(m.pos, v)
				}
			}
			continue
		}
		st.leave(e, int32(i), c)
		st.join(e, int32(i), c, st.scratch[i])
	}
	st.items.put(v)
	return nil
}

// remove deletes key (writer only); a missing key is a no-op.
func (st *lfState) remove(key string) {
	e := st.entries[key]
	if e == nil {
		return
	}
	st.items.remove(key)
	if st.all.remove(e.allPos) {
		st.compact(st.all)
	}
	for i, c := range st.cols {
		st.leave(e, int32(i), c)
	}
	delete(st.entries, key)
}

// has reports whether e's memberships in column col are exactly values.
func (e *lfEntry) has(col int32, values []string) bool {
	n := 0
	for _, m := range e.marks {
		if m.col == col {
			if !slices.Contains(values, m.p.value) {
				return false
			}
			n++
		}
	}
	distinct := len(values)
	for i := range values {
		if slices.Contains(values[:i], values[i]) {
			distinct--
		}
	}
	return n == distinct
}

// join adds e's current version to the postings of values in column c.
func (st *lfState) join(e *lfEntry, col int32, c *lfCol, values []string) {
	for i, value := range values {
		if slices.Contains(values[:i], value) {
			continue
		}
		p := c.postings.get(value)
		if p == nil {
			p = newPosting(value, 0)
			c.postings.put(p)
		}
		e.marks = append(e.marks, lfMark{p: p, col: col, pos: st.push(p, e.v)})
	}
}

// leave removes e from every posting of column c, forgetting values left
// without members.
func (st *lfState) leave(e *lfEntry, col int32, c *lfCol) {
	kept := e.marks[:0]
	for _, m := range e.marks {
		if m.col != col {
			kept = append(kept, m)
			continue
		}
		compact := m.p.remove(m.pos)
		switch {
		case m.p.live == 0:
			c.postings.remove(m.p.value)
		case compact:
			st.compact(m.p)
		}
	}
	clear(e.marks[len(kept):])
	e.marks = kept
}

// push appends v to p, compacting p first when its slab is full.
func (st *lfState) push(p *posting, v *version) int32 {
	pos := p.push(v)
	if pos < 0 {
		st.compact(p)
		pos = p.push(v)
	}
	return pos
}

// compact compacts p and records the new positions of its members.
func (st *lfState) compact(p *posting) {
	p.compact(func(v *version, pos int32) {
		e := st.entries[v.key]
		if p == st.all {
			e.allPos = pos
			return
		}
		for i := range e.marks {
			if e.marks[i].p == p {
				e.marks[i].pos = pos
			}
		}
	})
}

// Add is Update: client-go makes no difference between the two.
func (s *LockFree) Add(key string, obj any) { s.report(s.UpdateChecked(key, obj)) }

// Update stores obj under key; an IndexFunc error goes to the error handler
// and leaves the store unchanged.
func (s *LockFree) Update(key string, obj any) { s.report(s.UpdateChecked(key, obj)) }

// UpdateChecked implements Store.
func (s *LockFree) UpdateChecked(key string, obj any) error {
	rv, hasRV := objectRV(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.state.Load().put(key, obj); err != nil {
		return err
	}
	if hasRV {
		s.rv.Store(&rv)
	}
	return nil
}

// Delete removes key without touching the resource version.
func (s *LockFree) Delete(key string) { s.DeleteWithObject(key, nil) }

// DeleteWithObject removes key and, when obj carries ObjectMeta, moves the
// resource version to obj's.
func (s *LockFree) DeleteWithObject(key string, obj any) {
	rv, hasRV := objectRV(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.Load().remove(key)
	if hasRV {
		s.rv.Store(&rv)
	}
}

// Get returns the object stored under key.
func (s *LockFree) Get(key string) (any, bool) {
	if v := s.state.Load().items.get(key); v != nil {
		return v.obj, true
	}
	return nil, false
}

// List returns every stored object.
func (s *LockFree) List() []any {
	all := s.state.Load().all
	return gather(all, make([]any, 0, all.size()), objOf)
}

// ListKeys returns every stored key.
func (s *LockFree) ListKeys() []string {
	all := s.state.Load().all
	return gather(all, make([]string, 0, all.size()), keyOf)
}

// Replace swaps the whole content for items; see ReplaceChecked.
func (s *LockFree) Replace(items map[string]any, resourceVersion string) {
	s.report(s.ReplaceChecked(items, resourceVersion))
}

// ReplaceChecked implements Store: the new generation is built aside and
// published with one pointer store.
func (s *LockFree) ReplaceChecked(items map[string]any, resourceVersion string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := newLFState(s.state.Load().indexers, len(items))
	for k, obj := range items {
		if err := st.put(k, obj); err != nil {
			return err
		}
	}
	s.state.Store(st)
	s.rv.Store(&resourceVersion)
	return nil
}

// posting returns the posting of value in index name.
func (st *lfState) posting(name, value string) (*posting, error) {
	c := st.col(name)
	if c == nil {
		return nil, errUnknownIndex(name)
	}
	return c.postings.get(value), nil
}

// Index returns the objects sharing at least one indexName value with obj.
func (s *LockFree) Index(indexName string, obj any) ([]any, error) {
	st := s.state.Load()
	c := st.col(indexName)
	if c == nil {
		return nil, errUnknownIndex(indexName)
	}
	values, err := c.fn(obj)
	if err != nil {
		return nil, err
	}
	if len(values) == 1 {
		return s.ByIndex(indexName, values[0])
	}
	out := []any{}
	seen := make(map[string]bool)
	for _, value := range values {
		p, _ := st.posting(indexName, value)
		if p == nil {
			continue
		}
		for _, v := range gather(p, nil, self) {
			if !seen[v.key] { // the same key may sit in two postings, even as two versions
				seen[v.key] = true
				out = append(out, v.obj)
			}
		}
	}
	return out, nil
}

// IndexKeys returns the keys whose indexName values include indexedValue.
func (s *LockFree) IndexKeys(indexName, indexedValue string) ([]string, error) {
	p, err := s.state.Load().posting(indexName, indexedValue)
	if p == nil {
		return []string{}, err
	}
	return gather(p, make([]string, 0, p.size()), keyOf), nil
}

// ByIndex returns the objects whose indexName values include indexedValue.
func (s *LockFree) ByIndex(indexName, indexedValue string) ([]any, error) {
	p, err := s.state.Load().posting(indexName, indexedValue)
	if p == nil {
		if err != nil {
			return nil, err
		}
		return []any{}, nil
	}
	return gather(p, make([]any, 0, p.size()), objOf), nil
}

// ListIndexFuncValues returns the values of indexName that have at least one
// object; empty for an unknown index.
func (s *LockFree) ListIndexFuncValues(indexName string) []string {
	out := []string{}
	if c := s.state.Load().col(indexName); c != nil {
		out = c.postings.appendKeys(out)
	}
	return out
}

// GetIndexers returns a copy of the registered indexers.
func (s *LockFree) GetIndexers() cache.Indexers { return maps.Clone(s.state.Load().indexers) }

// AddIndexers registers more indexers and indexes the existing items with
// them, publishing the result at once; a name conflict or an IndexFunc
// error changes nothing.
func (s *LockFree) AddIndexers(newIndexers cache.Indexers) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state.Load()
	if err := checkNewIndexers(st.indexers, newIndexers, len(st.entries), &s.opts); err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(newIndexers))
	type pending struct {
		e      *lfEntry
		values [][]string
	}
	work := make([]pending, 0, len(st.entries))
	for key, e := range st.entries {
		w := pending{e: e, values: make([][]string, len(names))}
		for j, name := range names {
			f := newIndexFn(name, newIndexers[name])
			vs, err := f.values(key, e.v.obj)
			if err != nil {
				return err
			}
			w.values[j] = slices.Clone(vs) // vs may be f's buffer
		}
		work = append(work, w)
	}
	next := *st
	next.cols = slices.Clone(st.cols)
	for _, name := range names {
		next.cols = append(next.cols, newLFCol(name, newIndexers[name]))
	}
	next.indexers = mergeIndexers(st.indexers, newIndexers)
	next.scratch = make([][]string, len(next.cols))
	for _, w := range work {
		for j := range names {
			col := len(st.cols) + j
			next.join(w.e, int32(col), next.cols[col], w.values[j])
		}
	}
	s.state.Store(&next)
	return nil
}

// Resync is a no-op, as in client-go.
func (s *LockFree) Resync() error { return nil }

// Bookmark records rv as the latest resource version seen.
func (s *LockFree) Bookmark(rv string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv.Store(&rv)
}

// LastStoreSyncResourceVersion returns the latest resource version seen (""
// unless client-go's AtomicFIFO feature gate is on, as in client-go).
func (s *LockFree) LastStoreSyncResourceVersion() string {
	if !rvVisible() {
		return ""
	}
	return *s.rv.Load()
}

// Transaction applies txns; see TransactionChecked.
func (s *LockFree) Transaction(txns ...cache.ThreadSafeStoreTransaction) {
	if err := s.TransactionChecked(txns...); err != nil {
		s.report(err)
	}
}

// TransactionChecked implements Store: txns are applied in order in one
// write section (one acquisition of the writer mutex); readers may see them
// land one by one.
func (s *LockFree) TransactionChecked(txns ...cache.ThreadSafeStoreTransaction) *cache.TransactionError {
	s.mu.Lock()
	defer s.mu.Unlock()
	terr, rv, ok := applyTransactions(s.state.Load(), txns)
	if ok {
		s.rv.Store(&rv)
	}
	return terr
}

func (s *LockFree) report(err error) {
	if err != nil {
		s.opts.onError(err)
	}
}

package stores

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/cacheline"
)

// LockFree is a store whose readers never lock: Get, List, ListKeys,
// ByIndex, Index, IndexKeys and ListIndexFuncValues only load atomic
// pointers, so neither a writer nor another reader can make them wait, and
// no scan, however long, delays a writer. Writers serialize on one mutex,
// which readers never touch.
//
// Design, and why:
//   - Readers find objects through versions (see version): a version's key
//     never changes and its object is an atomic.Value, so a reader always
//     sees a key with an object that was stored under it. The common
//     informer update (same type, same index values) stores the new object
//     into the existing version: no allocation, one atomic store. Any other
//     write publishes a new version.
//   - Key lookup is an lfMap (key → version): open addressing over atomic
//     slots, lock-free and allocation-free for readers, about as fast as a
//     Go map. The runtime's sync.Map (a lock-free hash-trie since Go 1.24)
//     measured several times slower for Get; a map built for concurrent
//     writers (xsync) buys nothing when writers serialize anyway.
//   - Each index value's members, and the list of all objects, is a posting:
//     slots of atomic version pointers with a published length (see
//     posting). The writer appends, tombstones, or swaps a new version into
//     the slot the old one holds, so scans never see a member twice and
//     never skip one present throughout. A version sits only in postings
//     whose value its object has, so every ByIndex answer is consistent
//     per key.
//   - Replace builds a whole new generation aside and publishes it with one
//     pointer store: readers see the old content or the new, never a mix.
//     AddIndexers publishes a generation with more indexes likewise.
//
// The price, against Mutex: about 1.6 times the memory per object (a
// 64-byte version and its memberships, atomic slots at load ≤ 1/2), two
// allocations for each new key or change of index values, slower ByIndex
// and List (a pointer to follow per object), a Transaction's writes
// become visible one by one (Guarantees.AtomicTransactions is false), and
// no scan is a snapshot (Guarantees.SnapshotScans is false): a scan that
// overlaps writes sees each object as of the moment it reads it, so it may
// return one object's new version beside another's older one although the
// other was written first. Objects added after a scan began are not in it.
// Per key, a reader always sees an object that was stored under its key
// with the index values it was found by, and never, once a write returned,
// an older state. A key's insertion and deletion are single steps for all
// readers (see version.hidden); an update that changes index values is
// not (Guarantees.OrderedUpdates is false): while it runs, a ByIndex may
// find the key under its new value and a Get right after still return the
// old object, or a Get return the new object and a scan still hold the old.
// results/notes.md has the measurements.
type LockFree struct {
	// state is the one word every reader loads; the padding keeps the
	// writers' lock and resource version off its cache line, so a write
	// does not take the line away from every reader.
	state atomic.Pointer[lfState]
	_     [cacheline.Size]byte

	mu   sync.Mutex // serializes writers; readers never take it
	opts options

	// rvMu guards rv. Writers set rv under mu as well; LastStoreSyncResourceVersion
	// takes rvMu alone, which is held only to copy a string, so it never
	// waits for a write. A mutex rather than an atomic.Pointer[string]:
	// publishing a pointer would cost an allocation per write.
	rvMu sync.Mutex
	rv   string
}

// lfState is one generation of a LockFree store. Readers use items, all and
// cols; scratch is the writer's.
type lfState struct {
	items    *lfMap[version, *version] // key → current version
	all      *posting                  // every current version
	cols     []*lfCol                  // never mutated: AddIndexers publishes a new state
	indexers cache.Indexers

	scratch [][]string // per column: the values being written

	// marks is room for the marks of the keys a Replace builds the state
	// with, one per index each, carved off as they arrive: one allocation
	// for the whole load instead of one per key. A chunk holds no pointer
	// once its version leaves its postings (leave clears the marks), so a
	// deleted key's chunk pins nothing but itself until the next Replace.
	marks []lfMark
}

// lfCol is one index: value → posting of the versions having that value.
type lfCol struct {
	indexFn
	postings *lfMap[posting, *posting] // value → members
}

func newLFCol(name string, fn cache.IndexFunc) *lfCol {
	return &lfCol{indexFn: newIndexFn(name, fn), postings: newLFMap[posting](0)}
}

// NewLockFree returns an empty LockFree store, for readers that must never
// wait for the writer and can take scans that mix instants. It fails only
// when opts sets Shards, which a LockFree store has no use for.
func NewLockFree(opts Options) (*LockFree, error) {
	_, kept, err := opts.check("NewLockFree", false)
	if err != nil {
		return nil, err
	}
	s := &LockFree{opts: kept}
	s.state.Store(newLFState(maps.Clone(opts.Indexers), 0))
	return s, nil
}

func newLFState(indexers cache.Indexers, size int) *lfState {
	st := &lfState{
		items:    newLFMap[version](size),
		all:      newPosting("", size),
		indexers: indexers,
	}
	for _, name := range slices.Sorted(maps.Keys(indexers)) {
		st.cols = append(st.cols, newLFCol(name, indexers[name]))
	}
	st.scratch = make([][]string, len(st.cols))
	st.marks = make([]lfMark, size*len(st.cols))
	return st
}

// newMarks returns an empty marks slice with room for one value per index
// (the rule), from st.marks while it lasts.
func (st *lfState) newMarks() []lfMark {
	k := len(st.cols)
	if len(st.marks) < k {
		return make([]lfMark, 0, k)
	}
	m := st.marks[:0:k]
	st.marks = st.marks[k:]
	return m
}

func (st *lfState) col(name string) *lfCol { return findCol(st.cols, name) }

// put stores obj under key (writer only). Every IndexFunc runs first, so an
// error changes nothing.
func (st *lfState) put(key string, obj any) error {
	if err := evalAll(st.cols, st.scratch, key, obj); err != nil {
		return err
	}
	defer clear(st.scratch)
	old, at := st.items.lookup(key)
	if old != nil && old.canHold(obj) && st.sameValues(old) {
		old.obj.Store(obj) // the common update: see version
		return nil
	}
	v := newVersion(key, obj)
	if old == nil {
		v.hidden.Store(true) // revealed once linked everywhere: see version
		v.allPos = st.push(st.all, v)
		if len(st.cols) > 0 {
			v.marks = st.newMarks()
		}
		for i, c := range st.cols {
			st.join(v, int32(i), c, st.scratch[i])
		}
		st.items.insertAt(at, v) // join and push touch other maps: at still holds
		v.hidden.Store(false)
		return nil
	}
	v.allPos, v.marks = old.allPos, old.marks
	st.all.set(v.allPos, v)
	for i, c := range st.cols {
		if v.has(int32(i), st.scratch[i]) {
			for _, m := range v.marks {
				if m.col == int32(i) {
					m.p.set(m.pos, v)
				}
			}
			continue
		}
		st.leave(v, int32(i), c)
		st.join(v, int32(i), c, st.scratch[i])
	}
	st.items.setAt(at, v)
	return nil
}

// sameValues reports whether v has exactly the index values in scratch.
func (st *lfState) sameValues(v *version) bool {
	for i := range st.cols {
		if !v.has(int32(i), st.scratch[i]) {
			return false
		}
	}
	return true
}

// remove deletes key (writer only); a missing key is a no-op.
func (st *lfState) remove(key string) {
	v, at := st.items.lookup(key)
	if v == nil {
		return
	}
	v.hidden.Store(true) // the deletion, for readers: see version
	st.items.removeAt(at)
	if st.all.remove(v.allPos) {
		st.compact(st.all)
	}
	for i, c := range st.cols {
		st.leave(v, int32(i), c)
	}
}

// has reports whether v's memberships in column col are exactly values.
func (v *version) has(col int32, values []string) bool {
	n := 0
	for _, m := range v.marks {
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

// join adds v to the postings of values in column c.
func (st *lfState) join(v *version, col int32, c *lfCol, values []string) {
	for i, value := range values {
		if slices.Contains(values[:i], value) {
			continue
		}
		p, at := c.postings.lookup(value)
		if p == nil {
			p = newPosting(value, 0)
			c.postings.insertAt(at, p)
		}
		v.marks = append(v.marks, lfMark{p: p, col: col, pos: st.push(p, v)})
	}
}

// leave removes v from every posting of column c, forgetting values left
// without members.
func (st *lfState) leave(v *version, col int32, c *lfCol) {
	kept := v.marks[:0]
	for _, m := range v.marks {
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
	clear(v.marks[len(kept):])
	v.marks = kept
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

// compact compacts p and records the new positions of its members, which
// are current versions.
func (st *lfState) compact(p *posting) {
	p.compact(func(v *version, pos int32) {
		if p == st.all {
			v.allPos = pos
			return
		}
		for i := range v.marks {
			if v.marks[i].p == p {
				v.marks[i].pos = pos
			}
		}
	})
}

// Add is Update: client-go makes no difference between the two.
func (s *LockFree) Add(key string, obj any) { s.opts.report(s.UpdateChecked(key, obj)) }

// Update stores obj under key; an IndexFunc error goes to the error handler
// and leaves the store unchanged.
func (s *LockFree) Update(key string, obj any) { s.opts.report(s.UpdateChecked(key, obj)) }

// UpdateChecked implements Store.
func (s *LockFree) UpdateChecked(key string, obj any) error {
	rv, hasRV := objectRV(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.state.Load().put(key, obj); err != nil {
		return err
	}
	if hasRV {
		s.setRV(rv)
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
		s.setRV(rv)
	}
}

// Get returns the object stored under key.
func (s *LockFree) Get(key string) (any, bool) {
	if v := s.state.Load().items.get(key); v != nil && v.visible() {
		return v.object(), true
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
	s.opts.report(s.ReplaceChecked(items, resourceVersion))
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
	s.setRV(resourceVersion)
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
		return objectsIn(c.postings.get(values[0])), nil
	}
	out := []any{}
	seen := make(map[string]bool)
	var buf []*version // reused across values
	for _, value := range values {
		p := c.postings.get(value)
		if p == nil {
			continue
		}
		buf = gather(p, buf[:0], self)
		for _, v := range buf {
			if !seen[v.key] { // the same key may sit in two postings, even as two versions
				seen[v.key] = true
				out = append(out, v.object())
			}
		}
	}
	return out, nil
}

// IndexKeys returns the keys whose indexName values include indexedValue.
func (s *LockFree) IndexKeys(indexName, indexedValue string) ([]string, error) {
	p, err := s.state.Load().posting(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return []string{}, nil
	}
	return gather(p, make([]string, 0, p.size()), keyOf), nil
}

// ByIndex returns the objects whose indexName values include indexedValue.
func (s *LockFree) ByIndex(indexName, indexedValue string) ([]any, error) {
	p, err := s.state.Load().posting(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return objectsIn(p), nil
}

// objectsIn returns the objects of posting p (none when p is nil), in a
// slice sized once.
func objectsIn(p *posting) []any {
	if p == nil {
		return []any{}
	}
	return gather(p, make([]any, 0, p.size()), objOf)
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
	if err := checkNewIndexers(st.indexers, newIndexers, int(st.all.live), &s.opts); err != nil {
		return err
	}
	next := *st
	next.cols = slices.Clone(st.cols)
	for _, name := range slices.Sorted(maps.Keys(newIndexers)) {
		next.cols = append(next.cols, newLFCol(name, newIndexers[name]))
	}
	added := next.cols[len(st.cols):]
	// Evaluate every new IndexFunc for every object before changing
	// anything, so that an error leaves the store as it was.
	versions := gather(st.all, nil, self)
	values := make([][]string, 0, len(versions)*len(added))
	for _, v := range versions {
		for _, c := range added {
			vs, err := c.values(v.key, v.object())
			if err != nil {
				return err
			}
			values = append(values, slices.Clone(vs)) // vs may be c's buffer
		}
	}
	next.indexers = mergeIndexers(st.indexers, newIndexers)
	next.scratch = make([][]string, len(next.cols))
	for i, v := range versions {
		for j, c := range added {
			next.join(v, int32(len(st.cols)+j), c, values[i*len(added)+j])
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
	s.setRV(rv)
}

// setRV records rv (the caller holds mu).
func (s *LockFree) setRV(rv string) {
	s.rvMu.Lock()
	s.rv = rv
	s.rvMu.Unlock()
}

// LastStoreSyncResourceVersion returns the latest resource version seen (""
// unless client-go's AtomicFIFO feature gate is on, as in client-go).
func (s *LockFree) LastStoreSyncResourceVersion() string {
	if !rvVisible() {
		return ""
	}
	s.rvMu.Lock()
	defer s.rvMu.Unlock()
	return s.rv
}

// Transaction applies txns; see TransactionChecked.
func (s *LockFree) Transaction(txns ...cache.ThreadSafeStoreTransaction) {
	s.opts.reportTxn(s.TransactionChecked(txns...))
}

// TransactionChecked implements Store: txns are applied in order in one
// write section (one acquisition of the writer mutex); readers may see them
// land one by one.
func (s *LockFree) TransactionChecked(txns ...cache.ThreadSafeStoreTransaction) *cache.TransactionError {
	s.mu.Lock()
	defer s.mu.Unlock()
	terr, rv, ok := applyTransactions(s.state.Load(), txns)
	if ok {
		s.setRV(rv)
	}
	return terr
}

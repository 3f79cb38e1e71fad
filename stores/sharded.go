package stores

import (
	"hash/maphash"
	"maps"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/cacheline"
)

// Sharded spreads keys over a power-of-two number of shards (counted as
// internal/shard counts them) by key hash, each shard a table (see Mutex)
// with its own RWMutex and its own fragment of every index. A Get, Add,
// Update or Delete hashes its key once: the hash's top bits pick its shard,
// its low bits find it in the shard's table (see shardSet.hash). A
// Transaction and a Replace hash each key twice, once to learn which shards
// to lock or size and once to write it. Writers to different shards do not
// contend; ByIndex, Index, IndexKeys, List and ListIndexFuncValues visit
// the shards one at a time and merge, so a writer waits at most for one
// shard's part of a scan, never for the whole scan.
//
// Replace builds a complete new set of shards aside and swaps it in under
// every old shard's lock, retiring the old shards: a reader sees either the
// old content or the new one, never a mix. A Transaction locks every shard
// it touches, in order, once; a concurrent scan visiting shards one by one
// may still see part of it (Guarantees.AtomicTransactions is false). For the
// same reason no scan is a snapshot (Guarantees.SnapshotScans is false): a
// scan that overlaps writes returns each shard as of the moment it visited
// it, so it may combine a later write to one shard with an earlier state
// of another.
type Sharded struct {
	// set is loaded by every operation, seq added to by every write that
	// carries a resource version: the padding keeps them apart (and seq
	// from the cold fields after it), so writes do not take set's line
	// away from readers.
	set atomic.Pointer[shardSet]
	_   [cacheline.Size]byte
	seq atomic.Uint64 // orders resource-version updates across shards
	_   [cacheline.Size]byte

	wmu  sync.Mutex // serializes Replace and AddIndexers
	base rvMark     // set by Replace and Bookmark; guarded by baseMu
	// baseMu guards base.
	baseMu sync.Mutex
	opts   options
}

// shardSet is one generation of shards; Replace installs a new one.
// AddIndexers installs a copy with more indexers over the same shards.
type shardSet struct {
	seed     maphash.Seed // the key hash's, shared by every shard's table
	shift    uint         // a key's shard is its hash >> shift
	shards   []shardT
	indexers cache.Indexers // never mutated
}

func newShardSet(seed maphash.Seed, n int, indexers cache.Indexers) *shardSet {
	return &shardSet{seed: seed, shift: uint(64 - bits.TrailingZeros(uint(n))), shards: make([]shardT, n), indexers: indexers}
}

// hash returns the index of key's shard and the hash its table finds key
// by: the top bits of one maphash pick the shard and the low 32 bits,
// independent of them, go to the table's keyIndex.
func (set *shardSet) hash(key string) (shard int, h uint32) {
	x := maphash.String(set.seed, key)
	return int(x >> set.shift), uint32(x)
}

// locate returns key's shard and its hash for the shard's table.
func (set *shardSet) locate(key string) (*shardT, uint32) {
	i, h := set.hash(key)
	return &set.shards[i], h
}

// shardCore is the part of a shard that is touched together.
type shardCore struct {
	mu      sync.RWMutex
	t       *table
	retired bool   // the shard belongs to a replaced generation
	rv      rvMark // the last resource version a write here carried
}

// shardT is one shard, padded to whole cache lines so that neighbouring
// shards' locks do not share one.
type shardT struct {
	shardCore
	_ [(cacheline.Size - unsafe.Sizeof(shardCore{})%cacheline.Size) % cacheline.Size]byte
}

// rvMark is a resource version stamped with the order it was seen in.
type rvMark struct {
	rv  string
	seq uint64
}

// NewSharded returns an empty Sharded store of opts.Shards shards (four per
// GOMAXPROCS when zero; rounded up to a power of two), for writers that
// should not queue behind one lock. It fails when Shards is negative or
// above 65536.
func NewSharded(opts Options) (*Sharded, error) {
	n, kept, err := opts.check("NewSharded", true)
	if err != nil {
		return nil, err
	}
	s := &Sharded{opts: kept}
	indexers := maps.Clone(opts.Indexers)
	set := newShardSet(maphash.MakeSeed(), n, indexers)
	for i := range set.shards {
		set.shards[i].t = newTable(indexers, set.seed, 0)
	}
	s.set.Store(set)
	return s, nil
}

// lock write-locks the current shard of key and returns it with key's hash
// for its table.
func (s *Sharded) lock(key string) (*shardT, uint32) {
	for {
		sh, h := s.set.Load().locate(key)
		sh.mu.Lock()
		if !sh.retired {
			return sh, h
		}
		sh.mu.Unlock() // lost a race with Replace: use the new generation
	}
}

// stamp records rv as seen by a write to sh (whose lock the caller holds).
func (s *Sharded) stamp(sh *shardT, rv string) {
	sh.rv = rvMark{rv: rv, seq: s.seq.Add(1)}
}

// Add is Update: client-go makes no difference between the two.
func (s *Sharded) Add(key string, obj any) { s.opts.report(s.UpdateChecked(key, obj)) }

// Update stores obj under key; an IndexFunc error goes to the error handler
// and leaves the store unchanged.
func (s *Sharded) Update(key string, obj any) { s.opts.report(s.UpdateChecked(key, obj)) }

// UpdateChecked implements Store.
func (s *Sharded) UpdateChecked(key string, obj any) error {
	rv, hasRV := objectRV(obj)
	sh, h := s.lock(key)
	defer sh.mu.Unlock()
	if err := sh.t.putHashed(key, h, obj); err != nil {
		return err
	}
	if hasRV {
		s.stamp(sh, rv)
	}
	return nil
}

// Delete removes key without touching the resource version.
func (s *Sharded) Delete(key string) { s.DeleteWithObject(key, nil) }

// DeleteWithObject removes key and, when obj carries ObjectMeta, moves the
// resource version to obj's.
func (s *Sharded) DeleteWithObject(key string, obj any) {
	rv, hasRV := objectRV(obj)
	sh, h := s.lock(key)
	defer sh.mu.Unlock()
	sh.t.removeHashed(key, h)
	if hasRV {
		s.stamp(sh, rv)
	}
}

// Get returns the object stored under key.
func (s *Sharded) Get(key string) (any, bool) {
	sh, h := s.set.Load().locate(key)
	sh.mu.RLock()
	obj, ok := sh.t.getHashed(key, h) // cannot panic: no deferred unlock needed
	sh.mu.RUnlock()
	return obj, ok
}

// visit calls f on every shard of one generation under its read lock, one
// shard at a time.
func (set *shardSet) visit(f func(t *table)) {
	for i := range set.shards {
		sh := &set.shards[i]
		sh.mu.RLock()
		f(sh.t)
		sh.mu.RUnlock()
	}
}

// gatherShards merges f's contributions of every shard, one shard at a
// time. The result is sized first, from size of every shard (each read
// under its lock for a moment), so that it is allocated once and no larger
// than needed: for ByIndex the result is the whole allocation, and its
// bytes are what the garbage collector charges for. A shard that grows
// between the two passes costs one append growth.
func gatherShards[T any](set *shardSet, size func(t *table) int, f func(dst []T, t *table) []T) []T {
	n := 0
	for i := range set.shards {
		sh := &set.shards[i]
		sh.mu.RLock()
		n += size(sh.t)
		sh.mu.RUnlock()
	}
	out := make([]T, 0, n)
	for i := range set.shards {
		sh := &set.shards[i]
		sh.mu.RLock()
		out = f(out, sh.t)
		sh.mu.RUnlock()
	}
	return out
}

// List returns every stored object.
func (s *Sharded) List() []any {
	return gatherShards(s.set.Load(), (*table).len, func(dst []any, t *table) []any { return t.appendList(dst) })
}

// ListKeys returns every stored key.
func (s *Sharded) ListKeys() []string {
	return gatherShards(s.set.Load(), (*table).len, func(dst []string, t *table) []string { return t.appendKeys(dst) })
}

// Replace swaps the whole content for items; see ReplaceChecked.
func (s *Sharded) Replace(items map[string]any, resourceVersion string) {
	s.opts.report(s.ReplaceChecked(items, resourceVersion))
}

// ReplaceChecked implements Store: the new shards are built without any
// shard lock held, then swapped in at once. A first pass over items counts
// each shard's keys, so every table is sized exactly and then filled in
// place (no one else sees the new tables yet): no per-shard copy of items.
func (s *Sharded) ReplaceChecked(items map[string]any, resourceVersion string) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	old := s.set.Load()
	next := newShardSet(old.seed, len(old.shards), old.indexers)
	counts := make([]int, len(next.shards))
	for k := range items {
		i, _ := next.hash(k)
		counts[i]++
	}
	for i := range next.shards {
		next.shards[i].t = newTable(next.indexers, next.seed, counts[i])
	}
	for k, obj := range items {
		sh, h := next.locate(k)
		if err := sh.t.putHashed(k, h, obj); err != nil {
			return err
		}
	}
	old.lockAll()
	s.set.Store(next)
	s.baseMu.Lock()
	s.base = rvMark{rv: resourceVersion, seq: s.seq.Add(1)}
	s.baseMu.Unlock()
	for i := range old.shards {
		old.shards[i].retired = true
	}
	old.unlockAll()
	return nil
}

func (set *shardSet) lockAll() {
	for i := range set.shards {
		set.shards[i].mu.Lock()
	}
}

func (set *shardSet) unlockAll() {
	for i := range set.shards {
		set.shards[i].mu.Unlock()
	}
}

// Index returns the objects sharing at least one indexName value with obj.
func (s *Sharded) Index(indexName string, obj any) ([]any, error) {
	set := s.set.Load()
	fn := set.indexers[indexName]
	if fn == nil {
		return nil, errUnknownIndex(indexName)
	}
	values, err := fn(obj)
	if err != nil {
		return nil, err
	}
	return gatherShards(set, func(t *table) int { return t.col(indexName).sizeHint(values) },
		func(dst []any, t *table) []any { return t.appendIndex(dst, t.col(indexName), values) }), nil
}

// IndexKeys returns the keys whose indexName values include indexedValue.
func (s *Sharded) IndexKeys(indexName, indexedValue string) ([]string, error) {
	set := s.set.Load()
	if set.indexers[indexName] == nil {
		return nil, errUnknownIndex(indexName)
	}
	return gatherShards(set, func(t *table) int { return len(t.col(indexName).slotsOf(indexedValue)) },
		func(dst []string, t *table) []string {
			return t.appendSlotKeys(dst, t.col(indexName).slotsOf(indexedValue))
		}), nil
}

// ByIndex returns the objects whose indexName values include indexedValue.
func (s *Sharded) ByIndex(indexName, indexedValue string) ([]any, error) {
	set := s.set.Load()
	if set.indexers[indexName] == nil {
		return nil, errUnknownIndex(indexName)
	}
	return gatherShards(set, func(t *table) int { return len(t.col(indexName).slotsOf(indexedValue)) },
		func(dst []any, t *table) []any { return t.appendSlots(dst, t.col(indexName).slotsOf(indexedValue)) }), nil
}

// ListIndexFuncValues returns the values of indexName that have at least one
// object in some shard; empty for an unknown index.
func (s *Sharded) ListIndexFuncValues(indexName string) []string {
	seen := make(map[string]struct{})
	s.set.Load().visit(func(t *table) {
		if c := t.col(indexName); c != nil {
			for v := range c.vids {
				seen[v] = struct{}{}
			}
		}
	})
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	return out
}

// GetIndexers returns a copy of the registered indexers.
func (s *Sharded) GetIndexers() cache.Indexers { return maps.Clone(s.set.Load().indexers) }

// AddIndexers registers more indexers and indexes the existing items with
// them, under every shard's lock; a name conflict or an IndexFunc error
// changes nothing.
func (s *Sharded) AddIndexers(newIndexers cache.Indexers) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	set := s.set.Load()
	set.lockAll()
	defer set.unlockAll()
	items := 0
	for i := range set.shards {
		items += set.shards[i].t.len()
	}
	if err := checkNewIndexers(set.indexers, newIndexers, items, &s.opts); err != nil {
		return err
	}
	cols := make([][]*column, len(set.shards))
	for i := range set.shards {
		var err error
		if cols[i], err = set.shards[i].t.indexed(newIndexers); err != nil {
			return err
		}
	}
	for i := range set.shards {
		set.shards[i].t.attach(cols[i])
	}
	next := *set
	next.indexers = mergeIndexers(set.indexers, newIndexers)
	s.set.Store(&next)
	return nil
}

// Resync is a no-op, as in client-go.
func (s *Sharded) Resync() error { return nil }

// Bookmark records rv as the latest resource version seen.
func (s *Sharded) Bookmark(rv string) {
	s.baseMu.Lock()
	defer s.baseMu.Unlock()
	s.base = rvMark{rv: rv, seq: s.seq.Add(1)}
}

// LastStoreSyncResourceVersion returns the latest resource version seen:
// the most recently stamped of the shards' and Replace/Bookmark's ("" unless
// client-go's AtomicFIFO feature gate is on, as in client-go).
func (s *Sharded) LastStoreSyncResourceVersion() string {
	if !rvVisible() {
		return ""
	}
	s.baseMu.Lock()
	last := s.base
	s.baseMu.Unlock()
	set := s.set.Load()
	for i := range set.shards {
		sh := &set.shards[i]
		sh.mu.RLock()
		if sh.rv.seq > last.seq {
			last = sh.rv
		}
		sh.mu.RUnlock()
	}
	return last.rv
}

// Transaction applies txns; see TransactionChecked.
func (s *Sharded) Transaction(txns ...cache.ThreadSafeStoreTransaction) {
	s.opts.reportTxn(s.TransactionChecked(txns...))
}

// TransactionChecked implements Store: every shard the transactions touch is
// locked once, in shard order, and all of them are applied in that one
// write section.
func (s *Sharded) TransactionChecked(txns ...cache.ThreadSafeStoreTransaction) *cache.TransactionError {
	if len(txns) == 0 {
		return nil
	}
	for {
		set := s.set.Load()
		var small [256]bool // up to 256 shards, touched needs no allocation
		var touched []bool
		if n := len(set.shards); n <= len(small) {
			touched = small[:n]
		} else {
			touched = make([]bool, n)
		}
		for _, txn := range txns {
			i, _ := set.hash(txn.Key)
			touched[i] = true
		}
		var first *shardT
		retired := false
		for i, ok := range touched {
			if ok {
				sh := &set.shards[i]
				sh.mu.Lock()
				retired = retired || sh.retired
				if first == nil {
					first = sh
				}
			}
		}
		if !retired {
			terr, rv, ok := applyTransactions(shardWriter{set}, txns)
			if ok {
				s.stamp(first, rv)
			}
			set.unlock(touched)
			return terr
		}
		set.unlock(touched) // lost a race with Replace: use the new generation
	}
}

func (set *shardSet) unlock(touched []bool) {
	for i, ok := range touched {
		if ok {
			set.shards[i].mu.Unlock()
		}
	}
}

// shardWriter routes a transaction's writes to their shards, whose locks
// TransactionChecked holds.
type shardWriter struct{ set *shardSet }

func (w shardWriter) put(key string, obj any) error {
	sh, h := w.set.locate(key)
	return sh.t.putHashed(key, h, obj)
}

func (w shardWriter) remove(key string) {
	sh, h := w.set.locate(key)
	sh.t.removeHashed(key, h)
}

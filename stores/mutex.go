package stores

import (
	"hash/maphash"
	"maps"
	"sync"

	"k8s.io/client-go/tools/cache"
)

// Mutex is client-go's design — one sync.RWMutex around a map and its
// indices — with a compact index representation (see column): ByIndex is a
// map lookup plus a gather, an update that keeps its index values is one
// string compare per index and allocates nothing, and each object costs a
// few int32s per index instead of a set entry. Scans (List, ByIndex, ...)
// hold the read lock for their whole duration, as client-go's do, so a
// writer waits behind them.
type Mutex struct {
	mu       sync.RWMutex
	t        *table
	indexers cache.Indexers // never mutated: AddIndexers installs a new map
	gen      uint64         // bumped by AddIndexers; ReplaceChecked detects a race with it
	rv       string
	opts     options
}

// NewMutex returns an empty Mutex store: client-go's guarantees at about
// half its memory. It fails only when opts sets Shards, which a Mutex
// store has no use for.
func NewMutex(opts Options) (*Mutex, error) {
	_, kept, err := opts.check("NewMutex", false)
	if err != nil {
		return nil, err
	}
	indexers := maps.Clone(opts.Indexers)
	return &Mutex{t: newTable(indexers, maphash.MakeSeed(), 0), indexers: indexers, opts: kept}, nil
}

// Add is Update: client-go makes no difference between the two.
func (m *Mutex) Add(key string, obj any) { m.opts.report(m.UpdateChecked(key, obj)) }

// Update stores obj under key; an IndexFunc error goes to the error handler
// and leaves the store unchanged.
func (m *Mutex) Update(key string, obj any) { m.opts.report(m.UpdateChecked(key, obj)) }

// UpdateChecked implements Store.
func (m *Mutex) UpdateChecked(key string, obj any) error {
	rv, hasRV := objectRV(obj)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.t.put(key, obj); err != nil {
		return err
	}
	if hasRV {
		m.rv = rv
	}
	return nil
}

// Delete removes key without touching the resource version.
func (m *Mutex) Delete(key string) { m.DeleteWithObject(key, nil) }

// DeleteWithObject removes key and, when obj carries ObjectMeta, moves the
// resource version to obj's.
func (m *Mutex) DeleteWithObject(key string, obj any) {
	rv, hasRV := objectRV(obj)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.t.remove(key)
	if hasRV {
		m.rv = rv
	}
}

// Get returns the object stored under key.
func (m *Mutex) Get(key string) (any, bool) {
	m.mu.RLock()
	obj, ok := m.t.get(key) // cannot panic: no deferred unlock needed
	m.mu.RUnlock()
	return obj, ok
}

// List returns every stored object.
func (m *Mutex) List() []any {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.t.appendList(make([]any, 0, m.t.len()))
}

// ListKeys returns every stored key.
func (m *Mutex) ListKeys() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.t.appendKeys(make([]string, 0, m.t.len()))
}

// Replace swaps the whole content for items; see ReplaceChecked.
func (m *Mutex) Replace(items map[string]any, resourceVersion string) {
	m.opts.report(m.ReplaceChecked(items, resourceVersion))
}

// ReplaceChecked implements Store. The new table is built without holding
// the lock, so readers keep reading the old content meanwhile and then see
// the new one all at once.
func (m *Mutex) ReplaceChecked(items map[string]any, resourceVersion string) error {
	m.mu.RLock()
	indexers, gen := m.indexers, m.gen
	m.mu.RUnlock()
	for {
		t := newTable(indexers, maphash.MakeSeed(), len(items))
		if err := t.fill(items); err != nil {
			return err
		}
		m.mu.Lock()
		if m.gen != gen { // AddIndexers ran meanwhile: index with the new set
			indexers, gen = m.indexers, m.gen
			m.mu.Unlock()
			continue
		}
		m.t, m.rv = t, resourceVersion
		m.mu.Unlock()
		return nil
	}
}

// Index returns the objects sharing at least one indexName value with obj.
func (m *Mutex) Index(indexName string, obj any) ([]any, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	c := m.t.col(indexName)
	if c == nil {
		return nil, errUnknownIndex(indexName)
	}
	values, err := c.fn(obj)
	if err != nil {
		return nil, err
	}
	// Non-nil even when nothing matches, as client-go's; appendIndex sizes
	// it from its one lookup per value.
	return m.t.appendIndex([]any{}, c, values), nil
}

// IndexKeys returns the keys whose indexName values include indexedValue.
func (m *Mutex) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return byIndex(m, indexName, indexedValue, (*table).appendSlotKeys)
}

// ByIndex returns the objects whose indexName values include indexedValue.
func (m *Mutex) ByIndex(indexName, indexedValue string) ([]any, error) {
	return byIndex(m, indexName, indexedValue, (*table).appendSlots)
}

// byIndex appends what appendTo gives for the slots whose indexName values
// include indexedValue to a slice sized for them, under the read lock.
func byIndex[R any](m *Mutex, indexName, indexedValue string, appendTo func(*table, []R, []int32) []R) ([]R, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	c := m.t.col(indexName)
	if c == nil {
		return nil, errUnknownIndex(indexName)
	}
	slots := c.slotsOf(indexedValue)
	return appendTo(m.t, make([]R, 0, len(slots)), slots), nil
}

// ListIndexFuncValues returns the values of indexName that have at least one
// object; empty for an unknown index.
func (m *Mutex) ListIndexFuncValues(indexName string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	c := m.t.col(indexName)
	if c == nil {
		return []string{}
	}
	return c.appendValues(make([]string, 0, len(c.vids)))
}

// GetIndexers returns a copy of the registered indexers.
func (m *Mutex) GetIndexers() cache.Indexers {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return maps.Clone(m.indexers)
}

// AddIndexers registers more indexers and indexes the existing items with
// them; a name conflict or an IndexFunc error changes nothing.
func (m *Mutex) AddIndexers(newIndexers cache.Indexers) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := checkNewIndexers(m.indexers, newIndexers, m.t.len(), &m.opts); err != nil {
		return err
	}
	cols, err := m.t.indexed(newIndexers)
	if err != nil {
		return err
	}
	m.t.attach(cols)
	m.indexers = mergeIndexers(m.indexers, newIndexers)
	m.gen++
	return nil
}

// Resync is a no-op, as in client-go.
func (m *Mutex) Resync() error { return nil }

// Bookmark records rv as the latest resource version seen.
func (m *Mutex) Bookmark(rv string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rv = rv
}

// LastStoreSyncResourceVersion returns the latest resource version seen (""
// unless client-go's AtomicFIFO feature gate is on, as in client-go).
func (m *Mutex) LastStoreSyncResourceVersion() string {
	if !rvVisible() {
		return ""
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.rv
}

// Transaction applies txns under one write lock; see TransactionChecked.
func (m *Mutex) Transaction(txns ...cache.ThreadSafeStoreTransaction) {
	m.opts.reportTxn(m.TransactionChecked(txns...))
}

// TransactionChecked implements Store: txns are applied in order under one
// acquisition of the write lock, so readers see all of them or none.
func (m *Mutex) TransactionChecked(txns ...cache.ThreadSafeStoreTransaction) *cache.TransactionError {
	m.mu.Lock()
	defer m.mu.Unlock()
	terr, rv, ok := applyTransactions(m.t, txns)
	if ok {
		m.rv = rv
	}
	return terr
}

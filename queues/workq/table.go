package workq

import "github.com/queuelab/queuelab/internal/deque"

// state is where an item stands in a work queue.
type state uint8

const (
	// idle: neither queued nor processing; the record is only a cache entry
	// on the table's idle list and may be evicted at any time.
	idle state = iota
	// queued: waiting in the ready deque to be handed out by Get.
	queued
	// processing: handed out by Get, Done not yet called.
	processing
	// processingDirty: being processed and added again meanwhile; Done puts
	// it back in the ready deque.
	processingDirty
)

// record is the per-item bookkeeping of a table, kept in a slab so that the
// ready deque holds 4-byte indices instead of items and so that Get finds an
// item's state without hashing it. prev and next link idle records, oldest
// first; they hold slab index+1 so that 0 means none.
type record[T comparable] struct {
	item       T
	state      state
	prev, next int32
}

// idleRetention is how many idle items a table keeps at least (see
// table); Mutex uses it, each Sharded shard a share of it.
const idleRetention = 1024

// shrinkAbove is the slab size beyond which a table with nothing live
// releases its storage instead of keeping it for reuse: small working sets
// keep their warm map, a relist-sized burst does not pin memory forever.
const shrinkAbove = 4096

// table is the single-threaded core the Mutex queue and each shard of the
// Sharded queue wrap with their own lock. ONE map from item to a slab index
// replaces client-go's two sets (dirty, processing): Get pops an index and
// needs no map access at all, and Add and Done each look the item up once.
//
// Items that finish processing keep their record, as idle, on an LRU list of
// at most max(retain, peak) entries, where peak is the most items live at
// once since the table was last empty; older idle records are evicted.
// Controllers re-add the same keys again and again (updates, resyncs,
// retries), and a retained record turns that Add and the next Done into a
// single lookup each, instead of an insert and a delete — which, for a map
// that becomes empty, also re-seeds its hash with fresh randomness. Memory
// stays within twice the peak live items plus retain: the same order as
// client-go's sets, whose Go maps keep their peak capacity forever. Unlike
// those, a table with nothing live that grew beyond shrinkAbove drops its
// storage (idle records are only a cache, so that loses nothing). Idle
// records keep their items reachable; for string keys that is the key's
// bytes, bounded as above.
//
// The zero value is ready to use and retains nothing. A table is not safe
// for concurrent use.
type table[T comparable] struct {
	index      map[T]int32
	slab       []record[T]
	free       []int32 // slab indices available for reuse
	ready      deque.Deque[int32]
	idleHead   int32 // oldest idle record (index+1), 0 if none
	idleTail   int32 // newest idle record (index+1), 0 if none
	idle       int   // records on the idle list
	retain     int   // idle records always allowed
	peak       int   // most live records since the table was last empty
	processing int   // records in processing or processingDirty
}

// add marks item as needing processing. enqueued reports whether it was put
// in the ready deque; marked whether it was newly marked dirty (enqueued, or
// being processed and now to be re-queued by done) rather than already so.
func (t *table[T]) add(item T) (enqueued, marked bool) {
	i, ok := t.index[item]
	if !ok {
		if t.index == nil {
			t.index = make(map[T]int32)
		}
		i = t.alloc(item)
		t.index[item] = i
		t.ready.PushBack(i)
		t.peak = max(t.peak, t.live())
		return true, true
	}
	switch r := &t.slab[i]; r.state {
	case idle:
		t.unlinkIdle(i)
		r.state = queued
		t.ready.PushBack(i)
		t.peak = max(t.peak, t.live())
		return true, true
	case processing:
		r.state = processingDirty
		return false, true
	}
	return false, false
}

// pop hands out the oldest queued item and marks it processing.
func (t *table[T]) pop() (item T, ok bool) {
	i, ok := t.ready.PopFront()
	if !ok {
		return item, false
	}
	r := &t.slab[i]
	r.state = processing
	t.processing++
	return r.item, true
}

// done ends the processing of item and reports whether it went back to the
// ready deque because it was added while being processed. Done of an item
// that is not being processed is ignored: client-go would push a dirty item
// twice in that case (kubernetes/kubernetes#141079), breaking dedup.
func (t *table[T]) done(item T) (requeued bool) {
	i, ok := t.index[item]
	if !ok {
		return false
	}
	switch r := &t.slab[i]; r.state {
	case processing:
		r.state = idle
		t.processing--
		t.linkIdle(i)
		if t.live() == 0 {
			if len(t.slab) > shrinkAbove {
				*t = table[T]{retain: t.retain}
				return false
			}
			t.peak = 0
		}
		for t.idle > max(t.retain, t.peak) {
			t.evictOldestIdle()
		}
	case processingDirty:
		r.state = queued
		t.processing--
		t.ready.PushBack(i)
		return true
	}
	return false
}

// queued returns the number of items waiting to be handed out.
func (t *table[T]) queued() int { return t.ready.Len() }

// live returns the number of items queued or being processed.
func (t *table[T]) live() int { return t.ready.Len() + t.processing }

func (t *table[T]) alloc(item T) int32 {
	r := record[T]{item: item, state: queued}
	if n := len(t.free); n > 0 {
		i := t.free[n-1]
		t.free = t.free[:n-1]
		t.slab[i] = r
		return i
	}
	t.slab = append(t.slab, r)
	return int32(len(t.slab) - 1)
}

func (t *table[T]) evictOldestIdle() {
	i := t.idleHead - 1
	t.unlinkIdle(i)
	delete(t.index, t.slab[i].item)
	t.slab[i] = record[T]{} // drop the item for the GC
	t.free = append(t.free, i)
}

// linkIdle appends record i to the idle list (newest end).
func (t *table[T]) linkIdle(i int32) {
	r := &t.slab[i]
	r.prev, r.next = t.idleTail, 0
	if t.idleTail != 0 {
		t.slab[t.idleTail-1].next = i + 1
	} else {
		t.idleHead = i + 1
	}
	t.idleTail = i + 1
	t.idle++
}

// unlinkIdle removes record i from the idle list.
func (t *table[T]) unlinkIdle(i int32) {
	r := &t.slab[i]
	if r.prev != 0 {
		t.slab[r.prev-1].next = r.next
	} else {
		t.idleHead = r.next
	}
	if r.next != 0 {
		t.slab[r.next-1].prev = r.prev
	} else {
		t.idleTail = r.prev
	}
	r.prev, r.next = 0, 0
	t.idle--
}

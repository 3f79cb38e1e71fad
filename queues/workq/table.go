package workq

import (
	"hash/maphash"
	"time"
)

// state is where an item stands in a work queue. An item that is neither
// queued nor processing has no record at all: Done releases it.
type state uint8

const (
	// vacant: a slab slot on the free list, holding no item.
	vacant state = iota
	// queued: waiting in the ready list to be handed out by Get.
	queued
	// processing: handed out by Get, Done not yet called.
	processing
	// processingDirty: being processed and added again meanwhile; Done puts
	// it back in the ready list.
	processingDirty
)

// record is the per-item bookkeeping of a table, kept in a slab so that Get
// finds an item's state without hashing it.
type record[T comparable] struct {
	item  T
	hash  uint64 // the item's hash in the table's index
	state state
	// next links queued records, oldest first, as slab index+1 (0: last).
	next int32
}

// stamps is the metrics' timing of a table record, kept beside it (in
// table.stamps) only when the queue has metrics, so that a queue without
// them keeps its records small.
type stamps struct {
	// added is when the Add that marked the item dirty ran; the record is
	// handed out once per such Add, so it is always set when pop reads it.
	added time.Duration
	// started is when Get handed the item out.
	started time.Duration
	// at is the record's position in table.busy while it is processing.
	at int32
}

// shrinkAbove is the slab size beyond which a table with nothing live
// releases its storage instead of keeping it for reuse: small working sets
// keep their warm map and slab, a relist-sized burst does not pin memory
// forever.
const shrinkAbove = 4096

// table is the single-threaded core the Mutex queue and each shard of the
// Sharded queue wrap with their own lock. ONE index from item to a slab
// slot replaces client-go's two sets (dirty, processing): Get pops a slot
// and needs no lookup at all, Add hashes the item once (to find it or
// insert it), and Done finds the record it releases without hashing (see
// index).
//
// The ready FIFO is a list threaded through the queued records themselves
// (a record is queued at most once): pushing and popping write the record
// the transition writes anyway, with no buffer to grow, wrap or shrink.
//
// Done of an item that was not added again meanwhile deletes its record
// and clears the slot, as client-go forgets an item at Done: a queue of
// pointers must not keep their objects reachable once they are processed.
// Freed slots go on a free list, so a steady stream of Adds and Dones
// reuses them and the map's buckets without allocating.
//
// Memory: a table with nothing live whose slab grew beyond shrinkAbove
// drops its storage, so a relist-sized burst is returned to the GC once it
// has been processed.
//
// Metrics: with m set, the table keeps client-go's per-item times in
// stamps, under the lock its owner holds for the operation, where
// client-go's queue keeps them in two more maps keyed by item. The
// records being processed are listed in busy, so the unfinished-work
// refresh walks those alone, however many items are queued.
//
// A table is ready to use once its seed (and, for metrics, m) is set; it
// is not safe for concurrent use.
type table[T comparable] struct {
	seed       maphash.Seed // set by the owner before use; hashes for the index
	index      index[T, int32]
	slab       []record[T]
	free       []int32 // slab indices available for reuse
	head, tail int32   // ready list ends, as slab index+1 (0: empty)
	nQueued    int     // records on the ready list
	processing int     // records in processing or processingDirty
	lastOut    int32   // slab index+1 of the record pop handed out last; 0 if none

	m      *queueMetrics // nil: no metrics, and stamps and busy stay empty
	stamps []stamps      // parallel to slab
	busy   []int32       // slab indices of the records being processed
}

// add marks item, whose hash under t.seed is h, as needing processing, and
// reports whether it was put on the ready list. A new mark (an item
// enqueued, or being processed and now to be re-queued by done, rather
// than one already so) counts in the metrics, as client-go counts an Add
// that marks its item dirty.
func (t *table[T]) add(item T, h uint64) (enqueued bool) {
	c, found := t.index.slot(h, item)
	if !found {
		i := t.alloc(item, h)
		t.index.insertAt(c, h, item, i)
		t.push(i)
		t.marked(i)
		return true
	}
	i := t.index.at(c)
	if r := &t.slab[i]; r.state == processing {
		r.state = processingDirty
		t.marked(i)
		return false
	}
	return false
}

// marked counts the mark of record i in the metrics, if any, and times it.
func (t *table[T]) marked(i int32) {
	if t.m != nil {
		t.m.marked()
		t.stamps[i].added = t.m.now()
	}
}

func (t *table[T]) alloc(item T, h uint64) int32 {
	r := record[T]{item: item, hash: h, state: queued}
	if n := len(t.free); n > 0 {
		i := t.free[n-1]
		t.free = t.free[:n-1]
		t.slab[i] = r
		return i
	}
	t.slab = append(t.slab, r)
	if t.m != nil {
		t.stamps = append(t.stamps, stamps{})
	}
	return int32(len(t.slab) - 1)
}

// push appends queued record i to the ready list.
func (t *table[T]) push(i int32) {
	if t.tail != 0 {
		t.slab[t.tail-1].next = i + 1
	} else {
		t.head = i + 1
	}
	t.tail = i + 1
	t.nQueued++
}

// pop hands out the oldest queued item and marks it processing. With
// metrics, it counts the hand-out and observes how long the item waited
// since the Add that marked it: one clock reading ends the wait and starts
// the work, where client-go reads the clock twice.
func (t *table[T]) pop() (item T, ok bool) {
	if t.head == 0 {
		return item, false
	}
	i := t.head - 1
	r := &t.slab[i]
	t.head, r.next = r.next, 0
	if t.head == 0 {
		t.tail = 0
	}
	t.nQueued--
	r.state = processing
	t.processing++
	t.lastOut = i + 1
	if t.m != nil {
		now := t.m.now()
		t.m.depth.Dec()
		s := &t.stamps[i]
		t.m.latency.Observe((now - s.added).Seconds())
		s.started, s.at = now, int32(len(t.busy))
		t.busy = append(t.busy, i)
	}
	return r.item, true
}

// finished ends the processing of record i in the metrics: it observes
// the work duration and takes the record off busy.
func (t *table[T]) finished(i int32) {
	if t.m == nil {
		return
	}
	s := &t.stamps[i]
	t.m.workDuration.Observe((t.m.now() - s.started).Seconds())
	last := t.busy[len(t.busy)-1]
	t.busy[s.at] = last
	t.stamps[last].at = s.at
	t.busy = t.busy[:len(t.busy)-1]
}

// started yields the time each item being processed was handed out, for
// the unfinished-work gauges.
func (t *table[T]) started(yield func(time.Duration) bool) {
	for _, i := range t.busy {
		if !yield(t.stamps[i].started) {
			return
		}
	}
}

// done ends the processing of item (observing its work duration, with
// metrics) and reports whether it went back to the ready list because it
// was added while being processed; otherwise the item is released. Done of an item that is not being processed is
// ignored: client-go would push a dirty item twice in that case
// (kubernetes/kubernetes#141079), breaking dedup. h is item's hash under
// t.seed if the caller has computed it already (Sharded, to pick the
// shard), or 0 to hash it only when the lastOut shortcut below misses.
func (t *table[T]) done(item T, h uint64) (requeued bool) {
	// A worker calls Done with the item its Get returned, so with one worker
	// (controller-runtime's default) the record is the one pop handed out
	// last: comparing its item is cheaper than hashing. A vacant slot holds
	// the zero item, which may be a real item elsewhere.
	i := t.lastOut - 1
	if i < 0 || t.slab[i].item != item || t.slab[i].state == vacant {
		if t.index.len() == 0 {
			return false
		}
		if h == 0 {
			h = hashOf(t.seed, item)
		}
		var ok bool
		if i, ok = t.index.lookup(h, item); !ok {
			return false
		}
	}
	switch r := &t.slab[i]; r.state {
	case processing:
		t.finished(i)
		t.processing--
		t.release(i)
	case processingDirty:
		t.finished(i)
		r.state = queued
		t.processing--
		t.push(i)
		return true
	}
	return false
}

// release forgets the item of record i, and drops the table's storage once
// nothing is live in a slab grown beyond shrinkAbove.
func (t *table[T]) release(i int32) {
	t.index.remove(t.slab[i].hash, i)
	t.slab[i] = record[T]{} // vacant, and the item dropped for the GC
	t.free = append(t.free, i)
	if t.live() == 0 && len(t.slab) > shrinkAbove {
		// Nothing is live, so the ready list and counts are already zero.
		// The seed is not rewritten: Mutex.Add reads it outside the lock.
		t.index, t.slab, t.free, t.lastOut = index[T, int32]{}, nil, nil, 0
		t.stamps, t.busy = nil, nil
	}
}

// queued returns the number of items waiting to be handed out.
func (t *table[T]) queued() int { return t.nQueued }

// live returns the number of items queued or being processed.
func (t *table[T]) live() int { return t.nQueued + t.processing }

// drained reports whether a ShutDownWithDrain may return as far as this
// table goes: nothing processing and, if queuedToo (Options.DrainQueued),
// nothing queued.
func (t *table[T]) drained(queuedToo bool) bool {
	if queuedToo {
		return t.live() == 0
	}
	return t.processing == 0
}

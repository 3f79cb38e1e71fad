package priorityq

import (
	"slices"
	"time"

	"github.com/queuelab/queuelab/internal/freelist"
)

// none is the nil link of the records' intrusive lists.
const none = -1

// status bits of a record.
const (
	inReady    uint8 = 1 << iota // linked into its priority's ready list
	inWaiting                    // in the waiting heap, until readyAt
	processing                   // handed out, Done not yet called
	addTimed                     // addedAt is set (metrics: queue latency)
	started                      // startedAt is set (metrics: work duration)
)

// record is the whole state of one item. An item has a record while it is
// queued (ready or waiting) or being processed, and loses it when none of
// that holds any more: the record is zeroed, so the queue keeps nothing of
// the item reachable once Done returns (the house rule for work queues).
type record[T comparable] struct {
	key       T
	prio      int
	seq       uint64   // order among ready items of one priority (controller-runtime's AddedCounter)
	readyAt   int64    // ns since engine.base, while inWaiting
	addedAt   int64    // ns since engine.base, while addTimed
	startedAt int64    // ns since engine.base, while started
	lk        [2]links // neighbours in the ready list (while inReady) and the started list (while started)
	heapAt    int32    // position in engine.waiting, while inWaiting
	st        uint8
}

// The engine's intrusive lists: a record's links in each sit at the
// list's index in record.lk.
const (
	readyList   = iota // a priority's ready records, in seq order
	startedList        // the records being processed, oldest first
)

// links are a record's neighbours in one of the engine's lists, none at
// its ends (and both none while the record is not in it).
type links struct{ prev, next int32 }

// list is the first and last records of one of the engine's lists, none
// while it is empty.
type list struct{ head, tail int32 }

// emptyList is a list with nothing in it.
var emptyList = list{head: none, tail: none}

// level is the ready list of one priority: records linked in seq order.
type level struct {
	prio int
	list
}

// engine is the single-threaded heart of every lock-based variant: the
// caller holds the lock that guards it. Records live in a slab indexed by a
// map and recycled through a free list, so a steady add-get-done cycle
// allocates nothing. Ready records hang in one list per priority; levels
// holds the non-empty lists, highest priority first, and is searched
// linearly because controllers use a handful of priorities (controller-runtime
// itself two). Delayed records wait in a min-heap by ready time.
//
// Order follows controller-runtime's queue exactly: ready items go out by
// priority, then by seq; a new ready item, one raised to a higher priority
// and one whose delay expired get a fresh seq (the tail of their list); a
// waiting item made ready by a plain add keeps the seq it had. An item added
// while it is processed is linked into the ready list like any other but
// skipped until its Done.
type engine[T comparable] struct {
	recs    []record[T]
	free    []int32
	index   map[T]int32
	levels  []level
	waiting waitHeap[T]
	seq     uint64
	ready   int // records in ready lists (Len)
	blocked int // of those, records still processing
	busy    int // records processing
	base    time.Time
	m       *metrics // nil: no metrics
	// the started records, oldest first: the items whose work the
	// unfinished-work gauges sum, so that refreshing them walks the
	// workers' items only, not every record.
	started list
}

func (e *engine[T]) init(m *metrics) {
	e.index = make(map[T]int32)
	e.base = time.Now()
	e.m = m
	e.waiting.e = e
	e.started = emptyList
}

// now is the engine's clock: monotonic nanoseconds since init.
func (e *engine[T]) now() int64 { return int64(time.Since(e.base)) }

// add queues key with priority prio, ready now (after ≤ 0) or after the
// delay. It reports whether an item became eligible for Get and whether the
// earliest waiting time moved (the caller's timer must be re-armed).
func (e *engine[T]) add(key T, prio int, after time.Duration) (readied, rearm bool) {
	if after > 0 && e.m != nil {
		e.m.retries.Inc()
	}
	i, ok := e.index[key]
	if !ok {
		i = e.alloc(key)
	}
	r := &e.recs[i]
	switch {
	case r.st&(inReady|inWaiting) == 0: // new, or only processing
		r.prio = prio
		r.seq = e.nextSeq()
		if after > 0 {
			r.readyAt = e.now() + int64(after)
			e.waiting.push(i)
			return false, e.waiting.idx[0] == i
		}
		e.makeReady(i)
		return r.st&processing == 0, false
	case r.st&inReady != 0: // stays ready whatever the delay
		if prio > r.prio {
			if e.m != nil {
				e.m.raise(r.prio, prio)
			}
			e.unlink(i, e.levelOf(r.prio))
			r.prio = prio
			r.seq = e.nextSeq()
			e.link(i)
		}
		return false, false
	default: // waiting
		if prio > r.prio {
			r.prio = prio
			r.seq = e.nextSeq()
		}
		if after <= 0 {
			wasHead := e.waiting.idx[0] == i
			e.waiting.remove(int(r.heapAt))
			r.st &^= inWaiting
			e.makeReady(i)
			return r.st&processing == 0, wasHead
		}
		if at := e.now() + int64(after); at < r.readyAt {
			r.readyAt = at
		}
		e.waiting.fix(int(r.heapAt))
		return false, e.waiting.idx[0] == i
	}
}

func (e *engine[T]) nextSeq() uint64 {
	s := e.seq
	e.seq++
	return s
}

// alloc gives key a fresh record.
func (e *engine[T]) alloc(key T) int32 {
	i := freelist.Alloc(&e.recs, &e.free)
	e.recs[i] = record[T]{key: key, lk: [2]links{{none, none}, {none, none}}, heapAt: none}
	e.index[key] = i
	return i
}

// release drops a record nothing refers to any more, and with it the item.
func (e *engine[T]) release(i int32) {
	delete(e.index, e.recs[i].key)
	e.recs[i] = record[T]{}
	e.free = append(e.free, i)
}

// makeReady links record i into its ready list and counts it as added.
func (e *engine[T]) makeReady(i int32) {
	e.link(i)
	if e.m != nil {
		r := &e.recs[i]
		e.m.add(r.prio)
		if r.st&addTimed == 0 {
			r.st |= addTimed
			r.addedAt = e.now()
		}
	}
}

// levelOf returns the index of prio's level in e.levels, inserting an empty
// one if needed (levels stays sorted highest first).
func (e *engine[T]) levelOf(prio int) int {
	for l := range e.levels {
		switch p := e.levels[l].prio; {
		case p == prio:
			return l
		case p < prio:
			e.levels = slices.Insert(e.levels, l, level{prio: prio, list: emptyList})
			return l
		}
	}
	e.levels = append(e.levels, level{prio: prio, list: emptyList})
	return len(e.levels) - 1
}

// link puts record i into its priority's list at its seq's place: the tail
// unless it kept an old seq.
func (e *engine[T]) link(i int32) {
	r := &e.recs[i]
	l := &e.levels[e.levelOf(r.prio)]
	after := l.tail
	for after != none && e.recs[after].seq > r.seq {
		after = e.recs[after].lk[readyList].prev
	}
	e.insertAfter(&l.list, readyList, after, i)
	r.st |= inReady
	e.ready++
	if r.st&processing != 0 {
		e.blocked++
	}
}

// unlink takes record i, of level li (e.levelOf(its prio) when the caller
// does not hold it already), out of its ready list, dropping the list's
// level once it is empty.
func (e *engine[T]) unlink(i int32, li int) {
	r := &e.recs[i]
	l := &e.levels[li]
	e.remove(&l.list, readyList, i)
	r.st &^= inReady
	e.ready--
	if r.st&processing != 0 {
		e.blocked--
	}
	if l.head == none {
		e.levels = slices.Delete(e.levels, li, li+1)
	}
}

// eligible reports whether Get can hand something out now.
func (e *engine[T]) eligible() bool { return e.ready > e.blocked }

// topPriority returns the priority of the item Get would hand out, if any.
func (e *engine[T]) topPriority() (int, bool) {
	for _, l := range e.levels {
		for i := l.head; i != none; i = e.recs[i].lk[readyList].next {
			if e.recs[i].st&processing == 0 {
				return l.prio, true
			}
		}
	}
	return 0, false
}

// pop hands out the first ready item of the highest priority that is not
// being processed.
func (e *engine[T]) pop() (key T, prio int, ok bool) {
	if !e.eligible() {
		return key, 0, false
	}
	for li, l := range e.levels {
		for i := l.head; i != none; i = e.recs[i].lk[readyList].next {
			r := &e.recs[i]
			if r.st&processing != 0 {
				continue
			}
			e.unlink(i, li) // the level we are in: no second search
			r.st |= processing
			e.busy++
			if e.m != nil {
				now := e.now()
				e.m.get(r.prio)
				if r.st&addTimed != 0 {
					e.m.latency.Observe(seconds(now - r.addedAt))
					r.st &^= addTimed
				}
				r.st |= started
				r.startedAt = now
				e.linkStarted(i)
			}
			return r.key, r.prio, true
		}
	}
	panic("priorityq: ready count disagrees with the ready lists") // unreachable: eligible() checked
}

// done ends the processing of key. It reports whether the item was queued
// again meanwhile and is now eligible for Get.
func (e *engine[T]) done(key T) (readied bool) {
	i, ok := e.index[key]
	if !ok || e.recs[i].st&processing == 0 {
		return false
	}
	r := &e.recs[i]
	if e.m != nil && r.st&started != 0 {
		e.m.workDuration.Observe(seconds(e.now() - r.startedAt))
		e.unlinkStarted(i)
	}
	r.st &^= processing | started
	e.busy--
	if r.st&inReady != 0 {
		e.blocked--
		return true
	}
	if r.st&inWaiting == 0 {
		e.release(i)
		e.shrink()
	}
	return false
}

// advance makes every waiting item whose time has come ready, each with a
// fresh seq, in order of ready time, priority and seq. It returns how many
// became eligible.
func (e *engine[T]) advance() (eligible int) {
	now := e.now()
	for e.waiting.Len() > 0 {
		i := e.waiting.idx[0]
		r := &e.recs[i]
		if r.readyAt > now {
			break
		}
		e.waiting.remove(0)
		r.st &^= inWaiting
		r.seq = e.nextSeq()
		e.makeReady(i)
		if r.st&processing == 0 {
			eligible++
		}
	}
	return eligible
}

// nextDue returns how long until the earliest waiting item is due.
func (e *engine[T]) nextDue() (time.Duration, bool) {
	if e.waiting.Len() == 0 {
		return 0, false
	}
	return time.Duration(e.recs[e.waiting.idx[0]].readyAt - e.now()), true
}

// dropWaiting forgets every waiting item, as a shut-down queue does: they
// would never be handed out.
func (e *engine[T]) dropWaiting() {
	for _, i := range e.waiting.idx {
		r := &e.recs[i]
		r.st &^= inWaiting
		r.heapAt = none
		if r.st&(inReady|processing) == 0 {
			e.release(i)
		}
	}
	e.waiting.idx = e.waiting.idx[:0]
	e.shrink()
}

// idle reports whether nothing is queued for Get or being processed.
func (e *engine[T]) idle() bool { return e.ready == 0 && e.busy == 0 }

// linkStarted appends record i, just handed out, to the started list.
func (e *engine[T]) linkStarted(i int32) { e.insertAfter(&e.started, startedList, e.started.tail, i) }

// unlinkStarted takes record i out of the started list.
func (e *engine[T]) unlinkStarted(i int32) { e.remove(&e.started, startedList, i) }

// insertAfter links record i into l, the list of kind k, right after record
// after (at the head when after is none).
func (e *engine[T]) insertAfter(l *list, k int, after, i int32) {
	r := &e.recs[i].lk[k]
	r.prev = after
	if after == none {
		r.next = l.head
		l.head = i
	} else {
		r.next = e.recs[after].lk[k].next
		e.recs[after].lk[k].next = i
	}
	if r.next == none {
		l.tail = i
	} else {
		e.recs[r.next].lk[k].prev = i
	}
}

// remove takes record i out of l, the list of kind k.
func (e *engine[T]) remove(l *list, k int, i int32) {
	r := &e.recs[i].lk[k]
	if r.prev == none {
		l.head = r.next
	} else {
		e.recs[r.prev].lk[k].next = r.next
	}
	if r.next == none {
		l.tail = r.prev
	} else {
		e.recs[r.next].lk[k].prev = r.prev
	}
	*r = links{none, none}
}

// unfinished adds the processing items' ages to the totals of the
// unfinished-work gauges. It walks the started list, whose length is the
// number of items being processed (bounded by the workers), and whose head
// is the oldest.
func (e *engine[T]) unfinished(total, oldest *float64) {
	now := e.now()
	if e.started.head != none {
		*oldest = max(*oldest, seconds(now-e.recs[e.started.head].startedAt))
	}
	for i := e.started.head; i != none; i = e.recs[i].lk[startedList].next {
		*total += seconds(now - e.recs[i].startedAt)
	}
}

// shrinkAbove is the slab size beyond which an engine holding no record
// drops its slab, free list and index instead of keeping them for reuse
// (as workq's table does): small working sets keep their warm storage, a
// relist-sized burst does not pin memory for the life of the queue.
const shrinkAbove = 4096

// shrink drops the storage of an engine that holds no record once it grew
// beyond shrinkAbove; callers run it after the last use of a record
// pointer.
func (e *engine[T]) shrink() {
	if len(e.index) != 0 || len(e.recs) <= shrinkAbove {
		return
	}
	e.recs, e.free, e.index = nil, nil, make(map[T]int32)
	e.waiting.idx = nil
}

func seconds(ns int64) float64 { return time.Duration(ns).Seconds() }

// waitHeap orders waiting records by ready time, then as the ready lists
// do; it keeps each record's heapAt current for fix and remove. It is a
// binary min-heap written for int32 indices rather than container/heap,
// whose Push and Pop take an any: boxing an int32 past 255 allocates, so
// AddAfter and AddRateLimited would cost an allocation each on a queue with
// more than 256 records.
type waitHeap[T comparable] struct {
	e   *engine[T]
	idx []int32
}

func (h *waitHeap[T]) Len() int { return len(h.idx) }

func (h *waitHeap[T]) less(a, b int) bool {
	ra, rb := &h.e.recs[h.idx[a]], &h.e.recs[h.idx[b]]
	if ra.readyAt != rb.readyAt {
		return ra.readyAt < rb.readyAt
	}
	if ra.prio != rb.prio {
		return ra.prio > rb.prio
	}
	return ra.seq < rb.seq
}

func (h *waitHeap[T]) swap(a, b int) {
	h.idx[a], h.idx[b] = h.idx[b], h.idx[a]
	h.e.recs[h.idx[a]].heapAt = int32(a)
	h.e.recs[h.idx[b]].heapAt = int32(b)
}

// up moves the entry at j towards the root while it is less than its parent.
func (h *waitHeap[T]) up(j int) {
	for j > 0 {
		parent := (j - 1) / 2
		if !h.less(j, parent) {
			return
		}
		h.swap(j, parent)
		j = parent
	}
}

// down moves the entry at j towards the leaves while a child is less; it
// reports whether the entry moved.
func (h *waitHeap[T]) down(j int) bool {
	start, n := j, len(h.idx)
	for {
		c := 2*j + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h.less(r, c) {
			c = r
		}
		if !h.less(c, j) {
			break
		}
		h.swap(j, c)
		j = c
	}
	return j > start
}

// push adds record i and marks it waiting.
func (h *waitHeap[T]) push(i int32) {
	h.e.recs[i].st |= inWaiting
	h.e.recs[i].heapAt = int32(len(h.idx))
	h.idx = append(h.idx, i)
	h.up(len(h.idx) - 1)
}

// remove takes out the record at position j; the caller clears inWaiting.
func (h *waitHeap[T]) remove(j int) {
	n := len(h.idx) - 1
	if j != n {
		h.swap(j, n)
	}
	i := h.idx[n]
	h.idx = h.idx[:n]
	h.e.recs[i].heapAt = none
	if j != n && !h.down(j) {
		h.up(j)
	}
}

// fix restores the order after the record at position j changed.
func (h *waitHeap[T]) fix(j int) {
	if !h.down(j) {
		h.up(j)
	}
}

// cancel takes key out of the waiting heap, if it waits there, and returns
// its priority.
func (e *engine[T]) cancel(key T) (prio int, ok bool) {
	i, ok := e.index[key]
	if !ok || e.recs[i].st&inWaiting == 0 {
		return 0, false
	}
	r := &e.recs[i]
	e.waiting.remove(int(r.heapAt))
	r.st &^= inWaiting
	prio = r.prio
	if r.st&(inReady|processing) == 0 {
		e.release(i)
		e.shrink()
	}
	return prio, true
}

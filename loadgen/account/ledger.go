// Package account keeps the books of a load run: every change emitted to a
// pipeline, who reconciled which key when, and — at the end — whether the
// pipeline got everything right. A run with any violation fails.
//
// The ledger has one slot per key of the stream's key space, indexed by the
// key's integer index, so the hot path costs an uncontended mutex and no
// map lookups. Emissions come from one goroutine at a time (the watch
// emitter or a producer); covers come from the pipeline's workers, who never
// hold the same key at once in a correct pipeline (which the ledger checks).
package account

import (
	"sync"
	"sync/atomic"
)

// slot is one key's books: 64 bytes, one cache line, with the fields
// ordered by size so that padding only ends it (TestSlotFitsOneLine).
type slot struct {
	mu sync.Mutex
	// rv and deleted (last, the one byte-sized field) describe the
	// newest change emitted for the key.
	rv uint64
	// pending is 1 + the emission time (ns) of the oldest change no
	// reconcile has observed yet; 0 when none is pending.
	pending int64
	// applied is the newest write applied to the store, as rv<<1 | deleted;
	// readers use it to detect stale reads.
	applied atomic.Uint64
	// seq counts emissions; covered is seq as of the last reconcile that
	// observed the newest change.
	seq, covered uint32
	// wantDeletes counts deletions the handler must see (delivered deletes
	// and relist tombstones); gotDeletes counts those it saw.
	wantDeletes uint32
	gotDeletes  atomic.Uint32
	// begun and done count store writes of the key started (Begin, before
	// the write reaches the store) and booked (Applied, after). While they
	// differ a write is in flight, and a reader cannot say what the store
	// must hold.
	begun, done atomic.Uint32
	// busy is set while a worker reconciles the key.
	busy    atomic.Bool
	deleted bool
}

// Ledger is the books of one run.
type Ledger struct {
	slots     []slot
	uncovered atomic.Int64
	emitted   atomic.Int64
	// owedDeletes is the sum over keys of wantDeletes minus gotDeletes:
	// deletions the handler has yet to see.
	owedDeletes atomic.Int64

	// renotified counts, per key, notifications of a version the store
	// already held (Renotified); kept off the slot, which is one cache
	// line, since only the informer's handler books them.
	renotified []atomic.Uint32
	skipped    atomic.Int64

	mu         sync.Mutex
	concurrent map[int]int
	stale      map[int]int
	// flagged holds the keys of checks found by the pipeline rather than
	// the books (Flag).
	flagged map[Check]map[int]int
}

// New returns a ledger for keys 0..keys-1.
func New(keys int) *Ledger {
	return &Ledger{slots: make([]slot, keys), renotified: make([]atomic.Uint32, keys),
		concurrent: map[int]int{}, stale: map[int]int{}, flagged: map[Check]map[int]int{}}
}

// Emit records a change of key k delivered to the pipeline at time at (ns
// on the run's clock): its resourceVersion (or any per-key increasing
// sequence) and whether it deletes the key. A deletion also obliges the
// handler to see one more delete of k.
func (l *Ledger) Emit(k int, rv uint64, deleted bool, at int64) {
	s := &l.slots[k]
	s.mu.Lock()
	s.rv, s.deleted = rv, deleted
	s.seq++
	if deleted {
		s.wantDeletes++
		l.owedDeletes.Add(1)
	}
	fresh := s.pending == 0
	if fresh {
		s.pending = at + 1
	}
	s.mu.Unlock()
	if fresh {
		l.uncovered.Add(1)
	}
	l.emitted.Add(1)
}

// Seq returns how many changes of key k were emitted so far. A workqueue
// worker takes it when it picks the key up: the reconcile observes exactly
// those changes.
func (l *Ledger) Seq(k int) uint32 {
	s := &l.slots[k]
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// CoverSeq records that a reconcile of key k which started after seq
// emissions finished at now. If no change arrived meanwhile, every pending
// change is covered and the latency from the oldest one is returned.
func (l *Ledger) CoverSeq(k int, seq uint32, now int64) (latency int64, ok bool) {
	s := &l.slots[k]
	s.mu.Lock()
	if s.seq != seq {
		s.mu.Unlock()
		return 0, false
	}
	return l.coverLocked(s, now)
}

// CoverState records that a reconcile of key k finished at now having
// observed the object at resourceVersion rv (or its absence). It covers the
// key's pending changes only if that is the newest emitted state.
func (l *Ledger) CoverState(k int, rv uint64, exists bool, now int64) (latency int64, ok bool) {
	s := &l.slots[k]
	s.mu.Lock()
	if s.deleted == exists || (exists && rv != s.rv) {
		s.mu.Unlock()
		return 0, false
	}
	return l.coverLocked(s, now)
}

func (l *Ledger) coverLocked(s *slot, now int64) (int64, bool) {
	pending := s.pending
	s.covered, s.pending = s.seq, 0
	s.mu.Unlock()
	if pending == 0 {
		return 0, false // nothing was pending: a resync or a duplicate
	}
	l.uncovered.Add(-1)
	return now - (pending - 1), true
}

// Skip records that a handler notified of key k's state (rv, or absent
// when !exists) dropped the notification without acting on it — it
// panicked, and the informer's panic policy (client-go's HandleCrash with
// utilruntime.ReallyCrash off, the lab's recover-and-skip) skips exactly
// that notification for that handler. What the contract lets it lose is
// that state and nothing else: if it is still the key's newest, its
// pending changes count as observed (with no latency sample); an older
// state covers nothing, and the notification of the newer one must still
// arrive and be acted on. It reports whether pending changes were
// forgiven.
func (l *Ledger) Skip(k int, rv uint64, exists bool) bool {
	l.skipped.Add(1)
	_, ok := l.CoverState(k, rv, exists, 0)
	return ok
}

// Skipped counts the notifications Skip forgave or not.
func (l *Ledger) Skipped() int64 { return l.skipped.Load() }

// Renotified records a notification of key k at the version the store
// already held: the informer contract allows one per relist (the
// Reflector's Replace) and one per resync, and Verify checks
// Expect.Renotify against the worst key.
func (l *Ledger) Renotified(k int) { l.renotified[k].Add(1) }

// Flag records a violation of check c for key k that the pipeline, not
// the books, detected (a handler notified of an older version than it
// had, a blocked handler that held up the others, a handler that missed a
// key's final state).
func (l *Ledger) Flag(c Check, k int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.flagged[c]
	if m == nil {
		m = map[int]int{}
		l.flagged[c] = m
	}
	m[k]++
}

// Enter marks key k as being reconciled; it returns false (and records a
// violation) if another worker is reconciling it already.
func (l *Ledger) Enter(k int) bool {
	if l.slots[k].busy.CompareAndSwap(false, true) {
		return true
	}
	l.mu.Lock()
	l.concurrent[k]++
	l.mu.Unlock()
	return false
}

// Exit ends the reconcile Enter started.
func (l *Ledger) Exit(k int) { l.slots[k].busy.Store(false) }

// Deleted records that the handler saw a deletion of key k.
func (l *Ledger) Deleted(k int) {
	l.slots[k].gotDeletes.Add(1)
	l.owedDeletes.Add(-1)
}

// OwedDeletes is how many deletions were emitted (or revealed by relists)
// that the handler has not seen yet; negative when it saw extra ones. A
// reconcile can observe a deletion in the store before the handler hears
// of it (the informer writes the store first), so a run is not drained
// until this is at most zero: stopping the informer earlier drops the
// notifications still queued for the handler, as client-go's does, and
// Verify would count them as lost.
func (l *Ledger) OwedDeletes() int64 { return l.owedDeletes.Load() }

// Applied records that the writer applied key k's object at resourceVersion
// rv to the store, or its deletion (rv then is the deleted object's): from
// now on no read may return that deleted version, or a version older than
// rv.
func (l *Ledger) Applied(k int, rv uint64, deleted bool) {
	v := rv << 1
	if deleted {
		v |= 1
	}
	l.slots[k].applied.Store(v)
	l.slots[k].done.Add(1)
}

// Begin records that a write of key k is about to reach the store; the
// writer books it with Applied once it is there. (A write that fails stays
// in flight, which only turns the absent-key check off for that key.)
func (l *Ledger) Begin(k int) { l.slots[k].begun.Add(1) }

// Read is what a reader knew before reading key k; see CheckRead.
type Read struct {
	applied uint64
	begun   uint32
	settled bool // no write of the key was in flight
}

// BeforeRead loads what the writer had applied for key k; take it before
// reading the store and hand it to CheckRead after.
func (l *Ledger) BeforeRead(k int) Read {
	sl := &l.slots[k]
	// done before applied before begun: if begun then equals done, no
	// write was in flight between the loads and applied is the store's.
	done := sl.done.Load()
	applied := sl.applied.Load()
	begun := sl.begun.Load()
	return Read{applied: applied, begun: begun, settled: begun == done}
}

// CheckRead records a stale read if the store returned, for key k, a
// version the writer had already replaced or deleted before the read began,
// or nothing although the key was stored before the read and no write of it
// began until after (exists and rv describe what the read returned).
func (l *Ledger) CheckRead(k int, before Read, exists bool, rv uint64) {
	if before.applied == 0 {
		return // nothing applied yet
	}
	applied, deleted := before.applied>>1, before.applied&1 == 1
	var stale bool
	if exists {
		stale = rv < applied || (deleted && rv == applied)
	} else {
		// Absent is legal only if a delete could have raced the read.
		stale = !deleted && before.settled && l.slots[k].begun.Load() == before.begun
	}
	if stale {
		l.mu.Lock()
		l.stale[k]++
		l.mu.Unlock()
	}
}

// Uncovered is the number of keys with a change no reconcile observed yet;
// a run is drained when it is zero and the source is exhausted.
func (l *Ledger) Uncovered() int64 { return l.uncovered.Load() }

// Emitted counts emitted changes.
func (l *Ledger) Emitted() int64 { return l.emitted.Load() }

// Keys is the size of the key space.
func (l *Ledger) Keys() int { return len(l.slots) }

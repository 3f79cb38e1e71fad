package inorder

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/internal/keyq"
)

// Queue is what an in-order FIFO offers: everything client-go's controller
// and Reflector use of a RealFIFO.
type Queue interface {
	cache.QueueWithBatch
	// Bookmark queues a Bookmark event (atomic mode), so the consumer's
	// store learns the resource version in order with the events.
	cache.ReflectorBookmarkStore
	// Transformer is consulted by the Reflector, which then transforms the
	// objects of a watch-list stream itself.
	cache.TransformingStore
}

// engine is what a variant adds to core: where events go and how a consumer
// waits for them.
type engine interface {
	write(t cache.DeltaType, obj any) error
	pop(batch cache.ProcessBatchFunc, single cache.PopProcessFunc) (any, error)
}

// core is what both variants share: turning writes into events, the synced
// state, and the consumer's choice of what to hand out next.
type core struct {
	engine engine
	s      settings
	key    keyq.KeyFunc
	// name is reported by HasSyncedChecker.
	name string
	sync syncState

	// Consumer side: touched only by the one consumer taking events (under
	// the variant's consumer lock).
	out  handout
	seen keySet
}

func (c *core) init(e engine, s settings, name string) {
	c.engine, c.s, c.key, c.name = e, s, keyq.NewKeyFunc(s.KeyFunction), name
	c.sync.done = make(chan struct{})
	c.seen.init(s.BatchSize)
}

// event checks obj's key and transforms it: the event a write enqueues. A
// key error is a cache.KeyError; nothing is enqueued on any error.
func (c *core) event(t cache.DeltaType, obj any) (cache.Delta, error) {
	var scratch [keyq.ScratchSize]byte
	if _, ok := obj.(cache.DeletedFinalStateUnknown); !ok {
		if _, _, err := c.key.Key(obj, scratch[:]); err != nil {
			return cache.Delta{}, cache.KeyError{Obj: obj, Err: err}
		}
		if c.s.Transformer != nil {
			var err error
			if obj, err = c.s.Transformer(obj); err != nil {
				return cache.Delta{}, err
			}
		}
	}
	return cache.Delta{Type: t, Object: obj}, nil
}

// replacedAll is the event of an atomic Replace. The list is copied only
// when a transformer rewrites it, as client-go does, so a failing
// transformer leaves the caller's list untouched.
func (c *core) replacedAll(list []any, rv string) (cache.Delta, error) {
	if c.s.Transformer != nil {
		out := make([]any, len(list))
		for i, obj := range list {
			t, err := c.s.Transformer(obj)
			if err != nil {
				return cache.Delta{}, err
			}
			out[i] = t
		}
		list = out
	}
	return cache.Delta{Type: cache.ReplacedAll, Object: cache.ReplacedAllInfo{ResourceVersion: rv, Objects: list}}, nil
}

// Add queues an Added event for obj.
func (c *core) Add(obj any) error { return c.engine.write(cache.Added, obj) }

// Update queues an Updated event for obj.
func (c *core) Update(obj any) error { return c.engine.write(cache.Updated, obj) }

// Delete queues a Deleted event for obj (a tombstone is queued as it is).
func (c *core) Delete(obj any) error { return c.engine.write(cache.Deleted, obj) }

// Pop hands the oldest event to process as a one-element cache.Deltas and
// returns it with process's error.
func (c *core) Pop(process cache.PopProcessFunc) (any, error) { return c.engine.pop(nil, process) }

// PopBatch hands the next run of events with distinct keys to processBatch,
// or a run of one to processSingle.
func (c *core) PopBatch(processBatch cache.ProcessBatchFunc, processSingle cache.PopProcessFunc) error {
	_, err := c.engine.pop(processBatch, processSingle)
	return err
}

// HasSynced reports whether the first Replace's events have all been
// processed, or a write came before any Replace.
func (c *core) HasSynced() bool { return c.sync.synced.Load() }

// HasSyncedChecker is the channel form of HasSynced.
func (c *core) HasSyncedChecker() cache.DoneChecker { return c }

// Name names the queue in cache.WaitFor's log lines.
func (c *core) Name() string { return c.name }

// Done is closed once HasSynced is true.
func (c *core) Done() <-chan struct{} { return c.sync.done }

// Transformer returns the transform applied to incoming objects.
func (c *core) Transformer() cache.TransformFunc { return c.s.Transformer }

// syncState tracks the first Replace through the consumer. populated and
// untaken are guarded by the consumer lock (and the writer lock, for
// populated, in the mutex variant); left and synced are atomic because the
// count drops after processing, which may run unlocked.
type syncState struct {
	populated bool
	// untaken: events of the first Replace (and what was queued before it)
	// no consumer has taken yet. A batch never crosses that boundary, so
	// the whole batch is initial or none of it is.
	untaken int
	// left: initial events not yet processed.
	left   atomic.Int64
	synced atomic.Bool
	done   chan struct{}
	once   sync.Once
}

// populate records the first write. queued is the number of events ahead of
// and including the first Replace's, 0 for an Add, Update or Delete.
func (s *syncState) populate(queued int) {
	if s.populated {
		return
	}
	s.populated = true
	s.untaken = queued
	s.left.Store(int64(queued))
	if queued == 0 {
		s.finish()
	}
}

func (s *syncState) finish() {
	s.once.Do(func() {
		s.synced.Store(true)
		close(s.done)
	})
}

// limit caps a run the consumer takes so it does not cross the end of the
// initial events.
func (s *syncState) limit(n int) int {
	if s.untaken > 0 {
		return min(n, s.untaken)
	}
	return n
}

// taken records n events taken, and returns how many of them were initial.
func (s *syncState) taken(n int) int {
	k := min(n, s.untaken)
	s.untaken -= k
	return k
}

// processed records the processing of k initial events.
func (s *syncState) processed(k int) {
	if k > 0 && s.left.Add(-int64(k)) == 0 {
		s.finish()
	}
}

// source is a variant's queue as the consumer sees it: the oldest event, and
// dropping it once it is taken.
type source interface {
	peek() (cache.Delta, bool)
	drop()
}

// take moves the next run of events from src into the hand-out buffer: one
// event, or with batch the longest run PopBatch may hand over (client-go's
// rule: batchable types with distinct keys, at most BatchSize, not crossing
// the initial events; an event whose key fails travels alone at the end).
// Called under the consumer lock.
func (c *core) take(src source, batch bool) []cache.Delta {
	limit := 1
	if batch {
		limit = c.s.BatchSize
	}
	limit = c.sync.limit(limit)
	run := c.out.begin()
	if batch {
		c.seen.reset()
	}
	var scratch [keyq.ScratchSize]byte
	for len(run) < limit {
		d, ok := src.peek()
		if !ok {
			break
		}
		if batch {
			if !batchable(d.Type) {
				if len(run) == 0 {
					run = append(run, d)
					src.drop()
				}
				break
			}
			h, ok := c.hashKey(d.Object, scratch[:])
			if !ok {
				run = append(run, d)
				src.drop()
				break
			}
			if !c.seen.add(h) {
				break
			}
		}
		run = append(run, d)
		src.drop()
	}
	c.out.commit(run)
	return run
}

// batchable: the types client-go lets into a batch.
func batchable(t cache.DeltaType) bool {
	switch t {
	case cache.Added, cache.Updated, cache.Deleted, cache.Replaced, cache.Sync:
		return true
	}
	return false
}

var seed = maphash.MakeSeed()

// hashKey hashes obj's key (a tombstone's Key field, as client-go keys it);
// ok is false when the key function fails.
func (c *core) hashKey(obj any, scratch []byte) (uint64, bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return maphash.String(seed, d.Key), true
	}
	s, b, err := c.key.Key(obj, scratch)
	if err != nil {
		return 0, false
	}
	if b != nil {
		return maphash.Bytes(seed, b), true
	}
	return maphash.String(seed, s), true
}

// keySet is the set of key hashes of the batch being built: open addressing
// over a table reused from batch to batch (a generation number empties it),
// so building a batch allocates nothing. Two keys with one hash end the
// batch early, which is allowed: a batch only has to be consecutive events
// with distinct keys, not the longest such run.
type keySet struct {
	slots []keySlot
	gen   uint32
}

type keySlot struct {
	h   uint64
	gen uint32
}

func (k *keySet) init(batchSize int) {
	n := 8
	for n < 2*batchSize {
		n *= 2
	}
	k.slots = make([]keySlot, n)
}

func (k *keySet) reset() {
	k.gen++
	if k.gen == 0 { // wrapped: stale generations could look current
		clear(k.slots)
		k.gen = 1
	}
}

// add inserts h and reports whether it was absent.
func (k *keySet) add(h uint64) bool {
	mask := uint64(len(k.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &k.slots[i]
		if s.gen != k.gen {
			*s = keySlot{h: h, gen: k.gen}
			return true
		}
		if s.h == h {
			return false
		}
	}
}

// handout is where taken events are copied for the process function: a
// buffer that is carved into runs and never written again once handed out,
// so a consumer may keep what it was handed (client-go gives each Pop a
// fresh slice) while the queue allocates one buffer per handoutSize events
// instead of one slice per Pop. Nothing is reserved ahead: client-go sizes
// each batch's slice for min(queued, 1000) events, which costs 32 KB per
// PopBatch under a backlog even when a repeated key ends the batch at one
// event.
type handout struct {
	buf []cache.Delta
}

const handoutSize = 256

// begin returns an empty run at the free end of the buffer. A run that
// outgrows the buffer is moved by append to an array of its own.
func (h *handout) begin() []cache.Delta {
	if len(h.buf) == cap(h.buf) {
		h.buf = make([]cache.Delta, 0, handoutSize)
	}
	return h.buf[len(h.buf):len(h.buf)]
}

// commit closes run, taken from begin: if it still lies in the buffer, the
// next run starts after it. (Slots a moved run wrote before it moved are
// referenced by nothing and are reused.)
func (h *handout) commit(run []cache.Delta) {
	end := len(h.buf)
	if len(run) > 0 && &run[0] == &h.buf[end : end+1][0] {
		h.buf = h.buf[:end+len(run)]
	}
}

// deliver calls the process function with a taken run, as client-go's
// PopBatch does: a run of one goes to single as cache.Deltas. initial says
// whether the run is part of the first Replace; k of its events count
// towards HasSynced once processing returns.
func deliver(run []cache.Delta, initial bool, k int, batch cache.ProcessBatchFunc, single cache.PopProcessFunc, s *syncState) (any, error) {
	defer s.processed(k)
	if len(run) == 1 || batch == nil {
		var item any = cache.Deltas(run[:len(run):len(run)])
		return item, single(item, initial)
	}
	return nil, batch(run[:len(run):len(run)], initial)
}

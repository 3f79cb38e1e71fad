package deltafifo

import (
	"fmt"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/internal/keyq"
)

// Mutex is a DeltaFIFO behind one mutex, in global FIFO order, like
// client-go's, with interned keys, arena-allocated Deltas and a ring-buffer
// queue, so a steady-state Add+Pop allocates only the boxed Deltas it
// returns.
type Mutex struct{ *core }

// Sharded is a DeltaFIFO split into independently locked shards by key
// hash, so writers of different keys rarely contend and a Pop's process
// function (which runs under its key's shard lock) blocks only that
// shard's writers.
//
// Ordering: the deltas of one key are never reordered. Keys of one shard
// are popped in the order they were queued; Pop and PopBatch serve the
// shards from a random start, so keys of different shards may overtake
// each other (guarantee.OrderPerShard).
//
// Atomicity: Replace, Resync, List and ListKeys take every shard lock (in
// index order), so they wait for an in-flight process function and none
// starts while they run. A Replace therefore sees KnownObjects and the
// queued deltas as one consistent state — no key is popped, or has its
// KnownObjects entry changed by the consumer, halfway through — and never
// produces a wrong tombstone or loses a delta.
type Sharded struct{ *core }

// Ring is a DeltaFIFO whose per-key state is sharded like Sharded's, while
// queued keys travel from writers to Pop through one lock-free MPMC queue
// (one ring reused lap after lap, further rings linked for relist bursts).
//
// Ordering: global FIFO — a key is popped after every key queued before it
// — and the deltas of one key are never reordered. Atomicity: as Sharded;
// a Pop takes the key from the ring and then its shard lock, and only then
// takes the deltas, so a Replace running in between simply finds the key
// still queued, and the Pop gets Replace's deltas too.
type Ring struct{ *core }

var (
	_ cache.QueueWithBatch    = (*Mutex)(nil)
	_ cache.QueueWithBatch    = (*Sharded)(nil)
	_ cache.QueueWithBatch    = (*Ring)(nil)
	_ cache.TransformingStore = (*Mutex)(nil)
	_ cache.TransformingStore = (*Sharded)(nil)
	_ cache.TransformingStore = (*Ring)(nil)
	_ cache.DoneChecker       = (*Mutex)(nil)
	_ cache.DoneChecker       = (*Sharded)(nil)
	_ cache.DoneChecker       = (*Ring)(nil)
	_ cache.KeyListerGetter   = (*Mutex)(nil)
)

// Options configures a DeltaFIFO. The zero value is valid for every
// variant: client-go's defaults for the embedded cache.DeltaFIFOOptions,
// and for Sharded and Ring the default shard count and ring size.
type Options struct {
	// DeltaFIFOOptions are honoured as cache.NewDeltaFIFOWithOptions
	// honours them.
	cache.DeltaFIFOOptions
	// Shards is the shard count of Sharded and Ring: 0 selects four per
	// GOMAXPROCS, others are rounded up to a power of two (at most 65536).
	// Mutex has one lock and rejects any other value than 0.
	Shards int
	// RingSize is how many keys one ring of a Ring DeltaFIFO holds (0
	// selects 8192; a longer backlog goes into further rings). Only Ring
	// takes it.
	RingSize int
}

// variant builds a DeltaFIFO of layout l from opts; wrap gives it its type.
func variant[V any](constructor string, l keyq.Layout, opts Options, wrap func(*core) *V) (*V, error) {
	c, err := l.Config(opts.Shards, opts.RingSize)
	if err != nil {
		return nil, fmt.Errorf("deltafifo: %s: %w", constructor, err)
	}
	co, err := newCore(opts.DeltaFIFOOptions, c)
	if err != nil {
		return nil, err
	}
	return wrap(co), nil
}

// NewMutex returns an empty Mutex DeltaFIFO.
func NewMutex(opts Options) (*Mutex, error) {
	return variant("NewMutex", keyq.OneShard, opts, func(c *core) *Mutex { return &Mutex{c} })
}

// NewSharded returns an empty Sharded DeltaFIFO.
func NewSharded(opts Options) (*Sharded, error) {
	return variant("NewSharded", keyq.Shards, opts, func(c *core) *Sharded { return &Sharded{c} })
}

// NewRing returns an empty Ring DeltaFIFO.
func NewRing(opts Options) (*Ring, error) {
	return variant("NewRing", keyq.ShardsAndRing, opts, func(c *core) *Ring { return &Ring{c} })
}

package fifo

import (
	"fmt"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/internal/keyq"
)

// Mutex is a FIFO behind one mutex, in global FIFO order, like client-go's,
// but with a ring-buffer queue, interned keys and no per-operation
// allocation for keys it has seen before.
type Mutex struct{ core }

// Sharded is a FIFO split into independently locked shards by key hash.
// Writers of different shards never contend. Order is FIFO within a shard;
// Pop serves the shards from a random start, so keys of different shards
// may overtake each other. Replace and Resync hold every shard lock, so they
// are atomic with respect to every other operation, Pop's process function
// included.
type Sharded struct{ core }

// Ring is a FIFO whose key state is sharded like Sharded's, while queued
// keys travel from writers to Pop through one lock-free MPMC queue (of
// rings): global FIFO order, and Pop never scans shards. Bulk operations hold every shard
// lock, as in Sharded.
type Ring struct{ core }

var (
	_ cache.Queue       = (*Mutex)(nil)
	_ cache.Queue       = (*Sharded)(nil)
	_ cache.Queue       = (*Ring)(nil)
	_ cache.DoneChecker = (*Mutex)(nil)
	_ cache.DoneChecker = (*Sharded)(nil)
	_ cache.DoneChecker = (*Ring)(nil)
)

// Options configures a FIFO. The zero value is valid for every variant:
// keys from cache.MetaNamespaceKeyFunc, and for Sharded and Ring the
// default shard count and ring size.
type Options struct {
	// KeyFunc computes an object's key; nil selects
	// cache.MetaNamespaceKeyFunc.
	KeyFunc cache.KeyFunc
	// Shards is the shard count of Sharded and Ring: 0 selects four per
	// GOMAXPROCS, others are rounded up to a power of two (at most 65536).
	// Mutex has one lock and rejects any other value than 0.
	Shards int
	// RingSize is how many keys one ring of a Ring FIFO holds (0 selects
	// 8192; a longer backlog goes into further rings). Only Ring takes it.
	RingSize int
}

// variant builds a FIFO of layout l from opts; wrap gives it its type.
func variant[V any](constructor string, l keyq.Layout, opts Options, wrap func(core) *V) (*V, error) {
	c, err := l.Config(opts.Shards, opts.RingSize)
	if err != nil {
		return nil, fmt.Errorf("fifo: %s: %w", constructor, err)
	}
	co, err := newCore(opts.KeyFunc, c)
	if err != nil {
		return nil, err
	}
	return wrap(co), nil
}

// NewMutex returns an empty Mutex FIFO.
func NewMutex(opts Options) (*Mutex, error) {
	return variant("NewMutex", keyq.OneShard, opts, func(c core) *Mutex { return &Mutex{c} })
}

// NewSharded returns an empty Sharded FIFO.
func NewSharded(opts Options) (*Sharded, error) {
	return variant("NewSharded", keyq.Shards, opts, func(c core) *Sharded { return &Sharded{c} })
}

// NewRing returns an empty Ring FIFO.
func NewRing(opts Options) (*Ring, error) {
	return variant("NewRing", keyq.ShardsAndRing, opts, func(c core) *Ring { return &Ring{c} })
}

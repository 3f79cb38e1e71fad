package fifo

import (
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

// NewMutex returns an empty Mutex FIFO keyed by keyFunc (nil selects
// cache.MetaNamespaceKeyFunc).
func NewMutex(keyFunc cache.KeyFunc) *Mutex {
	c, err := newCore(keyFunc, keyq.Config{Shards: 1})
	if err != nil {
		panic(err) // unreachable: the configuration is constant and valid
	}
	return &Mutex{c}
}

// NewSharded returns an empty Sharded FIFO keyed by keyFunc (nil selects
// cache.MetaNamespaceKeyFunc) over shards shards (0 selects
// shard.DefaultCount; others are rounded up to a power of two).
func NewSharded(keyFunc cache.KeyFunc, shards int) (*Sharded, error) {
	c, err := newCore(keyFunc, keyq.Config{Shards: shards})
	if err != nil {
		return nil, err
	}
	return &Sharded{c}, nil
}

// NewRing returns an empty Ring FIFO keyed by keyFunc (nil selects
// cache.MetaNamespaceKeyFunc) over shards shards (0 selects
// shard.DefaultCount) and rings of ringSize entries (0 selects
// keyq.DefaultRingSize; more keys than that go into further rings).
func NewRing(keyFunc cache.KeyFunc, shards, ringSize int) (*Ring, error) {
	c, err := newCore(keyFunc, keyq.Config{Shards: shards, Ring: true, RingSize: ringSize})
	if err != nil {
		return nil, err
	}
	return &Ring{c}, nil
}

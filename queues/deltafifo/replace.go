package deltafifo

import (
	"fmt"
	"slices"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/internal/keyq"
)

type bulk = keyq.Bulk[cache.Deltas]

// Replace appends a Replaced delta (Sync unless EmitDeltaTypeReplaced) for
// every listed object, then a Deleted delta carrying a
// DeletedFinalStateUnknown tombstone for every key that is queued or in
// KnownObjects but not listed, holding the key's last known object (its
// newest delta's, unwrapped if that is itself a tombstone; else the one in
// KnownObjects). The first Replace before any other write sets the initial
// population that HasSynced waits for.
//
// It runs with every shard lock held, so no Pop's process function runs
// meanwhile: the tombstones are computed against a KnownObjects that no
// consumer is changing, and no delta can slip between the two halves. A key
// or Transformer error undoes what the call appended and returns; the queue
// is then as before.
//
// Memory: listed keys reuse their interned slots (an informer relists keys
// it has seen); the first delta of every listed key comes out of one
// allocation for the whole list; tombstone keys come from KnownObjects'
// own key strings.
func (f *core) Replace(list []any, _ string) error {
	action := cache.Sync
	if f.emitReplaced {
		action = cache.Replaced
	}
	return f.set.Bulk(func(b *bulk) error {
		b.Reserve(len(list))
		stamp := b.NewStamp()
		if err := f.appendListed(b, list, action, stamp); err != nil {
			return err
		}
		f.tombstoneQueued(b, stamp)
		f.tombstoneKnown(b)
		b.MarkInitial() // every queued key: listed, tombstoned, or queued before
		return nil
	})
}

// appendListed appends one delta per listed object and queues, in list
// order, the keys that had no deltas. Listed slots end up marked with
// stamp. On error nothing is left appended.
func (f *core) appendListed(b *bulk, list []any, action cache.DeltaType, stamp uint32) error {
	// Until the list is known to be valid, a key that gets its first delta
	// is marked fresh instead of stamp, and queued afterwards.
	fresh := b.NewStamp()
	refs := slices.Grow(f.refs[:0], len(list)) // sized once, as block is
	defer func() { f.refs = refs[:0] }()
	block := make([]cache.Delta, len(list)) // first deltas of the whole list, one allocation
	var scratch [keyq.ScratchSize]byte
	for i, obj := range list {
		ks, kb, err := f.keyOf(obj, scratch[:0])
		if err != nil {
			f.unappend(b, refs)
			return cache.KeyError{Obj: obj, Err: err}
		}
		if obj, err = f.transformed(obj); err != nil {
			f.unappend(b, refs)
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
		r, _ := b.LookupNext(ks, kb, true)
		refs = append(refs, r)
		sl := b.Slot(r)
		d := cache.Delta{Type: action, Object: obj}
		if len(sl.Acc) == 0 {
			block[i] = d
			sl.Acc = block[i : i+1 : i+1]
			sl.Stamp = fresh
		} else {
			if sl.Stamp != fresh {
				sl.Stamp = stamp
			}
			sl.Acc = append(sl.Acc, d) // never a deletion: no dedup to do
		}
		b.Settle(r, 0)
	}
	for _, r := range refs {
		if sl := b.Slot(r); sl.Stamp == fresh {
			sl.Stamp = stamp
			b.Enqueue(r)
		}
	}
	return nil
}

// unappend takes back the deltas appendListed appended for refs, newest
// first, leaving every slot as it was.
func (f *core) unappend(b *bulk, refs []keyq.Ref) {
	for i := len(refs) - 1; i >= 0; i-- {
		sl := b.Slot(refs[i])
		sl.Acc = sl.Acc[:len(sl.Acc)-1]
		if len(sl.Acc) == 0 {
			sl.Acc = nil
			b.Settle(refs[i], keyq.Empty|keyq.Forget)
		}
	}
}

// tombstoneQueued appends a tombstone to every queued key the list did not
// name.
func (f *core) tombstoneQueued(b *bulk, stamp uint32) {
	b.Range(func(r keyq.Ref, sl *keyq.Slot[cache.Deltas]) bool {
		if sl.Stamp == stamp || len(sl.Acc) == 0 {
			return true
		}
		last := sl.Acc.Newest().Object
		if d, ok := last.(cache.DeletedFinalStateUnknown); ok {
			last = d.Obj
		}
		f.arenas[b.Shard(r)].add(sl, tombstone(sl.Key, last))
		return true
	})
}

// tombstoneKnown appends a tombstone for every KnownObjects key that has no
// deltas (so neither listed nor tombstoned above).
func (f *core) tombstoneKnown(b *bulk) {
	if f.known == nil {
		return
	}
	for _, key := range f.known.ListKeys() {
		r, _ := b.Lookup(key, nil, true) // interns the store's own key string
		sl := b.Slot(r)
		if len(sl.Acc) > 0 {
			continue
		}
		obj, exists, err := f.known.GetByKey(key)
		if err != nil {
			obj = nil
			utilruntime.HandleErrorWithLogger(f.logger, err, "Unexpected error during lookup, placing DeleteFinalStateUnknown marker without object", "key", key)
		} else if !exists {
			obj = nil
			f.logger.Info("Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object", "key", key)
		}
		if f.arenas[b.Shard(r)].add(sl, tombstone(key, obj))&keyq.Enqueue != 0 {
			b.Enqueue(r)
		}
		b.Settle(r, 0)
	}
}

func tombstone(key string, obj any) cache.Delta {
	return cache.Delta{Type: cache.Deleted, Object: cache.DeletedFinalStateUnknown{Key: key, Obj: obj}}
}

// Resync appends a Sync delta with the known object for every KnownObjects
// key that has no queued deltas (a key with pending deltas is skipped: its
// known object may be older than what is queued). Without KnownObjects it
// does nothing. Like Replace it holds every shard lock, and a key error
// undoes it.
func (f *core) Resync() error {
	if f.known == nil {
		return nil
	}
	return f.set.Bulk(func(b *bulk) error {
		keys := f.known.ListKeys()
		refs := slices.Grow(f.refs[:0], len(keys)) // sized once, as in Replace
		defer func() { f.refs = refs[:0] }()
		var scratch [keyq.ScratchSize]byte
		for _, key := range keys {
			obj, exists, err := f.known.GetByKey(key)
			if err != nil {
				utilruntime.HandleErrorWithLogger(f.logger, err, "Unexpected error during lookup, unable to queue object for sync", "key", key)
				continue
			} else if !exists {
				f.logger.Info("Key does not exist in known objects store, unable to queue object for sync", "key", key)
				continue
			}
			ks, kb, err := f.keyOf(obj, scratch[:0])
			if err != nil {
				f.unsync(b, refs)
				return cache.KeyError{Obj: obj, Err: err}
			}
			r, _ := b.Lookup(ks, kb, true)
			sl := b.Slot(r)
			if len(sl.Acc) > 0 {
				continue
			}
			sl.Acc = f.arenas[b.Shard(r)].one(cache.Delta{Type: cache.Sync, Object: obj})
			b.Settle(r, 0)
			refs = append(refs, r)
		}
		for _, r := range refs {
			b.Enqueue(r)
		}
		return nil
	})
}

// unsync takes back the Sync deltas Resync gave refs.
func (f *core) unsync(b *bulk, refs []keyq.Ref) {
	for _, r := range refs {
		b.Slot(r).Acc = nil
		b.Settle(r, keyq.Empty)
	}
}

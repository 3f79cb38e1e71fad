package fifo

import (
	"fmt"
	"slices"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues"
	"github.com/queuelab/queuelab/queues/internal/keyq"
)

// ErrRequeue is queues.ErrRequeue, named here so a caller of this package
// need not import another to requeue.
type ErrRequeue = queues.ErrRequeue

// item is a FIFO key's accumulator: the newest object, if not deleted.
type item struct {
	obj any
	has bool
}

// core is the FIFO semantics, written once over a keyq.Set; the exported
// types differ only in the Set's layout.
type core struct {
	set  *keyq.Set[item]
	keys keyq.KeyFunc
	refs []keyq.Ref // Replace's scratch, used under every lock: a relist
	// of n keys would otherwise allocate n refs each time
}

func newCore(keyFunc cache.KeyFunc, c keyq.Config) (core, error) {
	set, err := keyq.New[item](c)
	if err != nil {
		return core{}, fmt.Errorf("fifo: %w", err)
	}
	return core{set: set, keys: keyq.NewKeyFunc(keyFunc)}, nil
}

// Add stores obj as its key's newest value and queues the key unless it
// already holds a value (so it is queued at most once).
func (f *core) Add(obj any) error { return f.put(obj, false) }

// Update is Add.
func (f *core) Update(obj any) error { return f.put(obj, false) }

// AddIfNotPresent stores and queues obj only if its key holds no value, so
// a consumer can put back an item without overwriting a newer one a
// producer added meanwhile. [ext: client-go dropped it]
func (f *core) AddIfNotPresent(obj any) error { return f.put(obj, true) }

func (f *core) put(obj any, ifAbsent bool) error {
	return f.write(obj, true, func(_ int, sl *keyq.Slot[item]) keyq.Effect {
		if sl.Acc.has {
			if !ifAbsent {
				sl.Acc.obj = obj
			}
			return 0
		}
		sl.Acc = item{obj: obj, has: true}
		return keyq.Enqueue
	})
}

// Delete removes the key's value. A queued key stays queued and Pop skips
// it, so a deleted object is never popped.
func (f *core) Delete(obj any) error {
	return f.write(obj, false, func(_ int, sl *keyq.Slot[item]) keyq.Effect {
		sl.Acc = item{}
		return keyq.Empty | keyq.Forget
	})
}

// write applies fn to obj's key's slot (creating it if create); Produce marks
// the FIFO populated under the key's lock. A key error changes nothing.
func (f *core) write(obj any, create bool, fn func(int, *keyq.Slot[item]) keyq.Effect) error {
	var scratch [keyq.ScratchSize]byte
	ks, kb, err := f.keys.Key(obj, scratch[:0])
	if err != nil {
		return cache.KeyError{Obj: obj, Err: err}
	}
	f.set.Produce(ks, kb, create, fn)
	return nil
}

// Pop blocks until a key with a value is queued, removes the value and calls
// process with it under the key's lock (as client-go does, so process is
// serialized with every other operation on that key). It returns the value
// and process's error; with ErrRequeue the value is put back if its key is
// empty and Pop returns the inner error. Once the FIFO is closed and empty,
// Pop returns cache.ErrFIFOClosed.
func (f *core) Pop(process cache.PopProcessFunc) (any, error) {
	var obj any
	var perr error
	err := f.set.Pop(func(sl *keyq.Slot[item], initial bool) (bool, keyq.Effect) {
		if !sl.Acc.has {
			return false, keyq.Empty | keyq.Forget // deleted while queued
		}
		obj = sl.Acc.obj
		sl.Acc = item{}
		perr = process(obj, initial)
		if rq, ok := queues.AsRequeue(perr); ok {
			perr = rq.Err
			f.set.MarkPopulated()
			sl.Acc = item{obj: obj, has: true}
			return true, keyq.Enqueue
		}
		return true, keyq.Empty
	})
	if err != nil {
		return nil, err
	}
	return obj, perr
}

// Replace makes the FIFO's content exactly list: every other key's value is
// dropped and the queue is rebuilt with the listed keys, in list order. A
// key-function error leaves the FIFO unchanged.
//
// The first Replace's entries are what HasSynced waits for. A later Replace
// that discards some of them before they were popped (a relist right after
// the first list) makes its own entries the ones HasSynced waits for
// (client-go instead goes on counting that many pops of whatever comes
// next).
func (f *core) Replace(list []any, _ string) error {
	return f.set.Bulk(func(b *keyq.Bulk[item]) error {
		stamp := b.NewStamp()
		// Sized once: the first relist is the largest, and growing by
		// appends would copy it over twenty times.
		refs := slices.Grow(f.refs[:0], len(list))
		defer func() { f.refs = refs[:0] }()
		var scratch [keyq.ScratchSize]byte
		for _, obj := range list {
			ks, kb, err := f.keys.Key(obj, scratch[:0])
			if err != nil {
				forgetUnused(b, refs)
				return cache.KeyError{Obj: obj, Err: err}
			}
			r, _ := b.LookupNext(ks, kb, true)
			b.Slot(r).Stamp = stamp
			refs = append(refs, r)
		}
		b.ResetQueue()
		b.Range(func(r keyq.Ref, sl *keyq.Slot[item]) bool {
			sl.Acc = item{}
			if sl.Stamp != stamp {
				b.Settle(r, keyq.Empty|keyq.Forget)
			}
			return true
		})
		for i, r := range refs {
			sl := b.Slot(r)
			if !sl.Acc.has {
				b.Enqueue(r)
			}
			sl.Acc = item{obj: list[i], has: true}
			b.Settle(r, 0)
		}
		b.MarkInitial()
		return nil
	})
}

// forgetUnused drops the slots a failed bulk operation created.
func forgetUnused(b *keyq.Bulk[item], refs []keyq.Ref) {
	for _, r := range refs {
		if !b.Slot(r).Acc.has {
			b.Settle(r, keyq.Empty|keyq.Forget)
		}
	}
}

// Resync queues every key that holds a value but is not queued. The
// invariants make that a no-op; it exists because the Reflector calls it.
func (f *core) Resync() error {
	return f.set.Bulk(func(b *keyq.Bulk[item]) error {
		b.Range(func(r keyq.Ref, sl *keyq.Slot[item]) bool {
			if sl.Acc.has && !b.Queued(r) {
				b.Enqueue(r)
			}
			return true
		})
		return nil
	})
}

// HasSynced reports whether the first Replace's items have all been popped
// (deleted ones count as popped when Pop passes them), or a single-key
// write came before any Replace.
func (f *core) HasSynced() bool { return f.set.HasSynced() }

// HasSyncedChecker returns the FIFO itself, whose Done channel closes when
// HasSynced turns true.
func (f *core) HasSyncedChecker() cache.DoneChecker { return f }

// Name implements cache.DoneChecker.
func (f *core) Name() string { return "FIFO" }

// Done implements cache.DoneChecker.
func (f *core) Done() <-chan struct{} { return f.set.Done() }

// Close makes Pop return cache.ErrFIFOClosed once the FIFO is empty, waking
// the Pops that wait.
func (f *core) Close() { f.set.Close() }

// IsClosed reports whether Close was called.
func (f *core) IsClosed() bool { return f.set.IsClosed() }

package deltafifo

import (
	"errors"
	"fmt"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/queuelab/queuelab/queues"
	"github.com/queuelab/queuelab/queues/internal/keyq"
)

// ErrRequeue is queues.ErrRequeue, named here so a caller of this package
// need not import another to requeue.
type ErrRequeue = queues.ErrRequeue

// DefaultMaxBatch is the most keys PopBatch hands to one processBatch call,
// the batch size client-go's RealFIFO uses.
const DefaultMaxBatch = 1000

// core is the DeltaFIFO semantics, written once over a keyq.Set; the
// exported types differ only in the Set's layout.
type core struct {
	set          *keyq.Set[cache.Deltas]
	keys         keyq.KeyFunc
	known        cache.KeyListerGetter
	emitReplaced bool
	transform    cache.TransformFunc
	name         string
	logger       klog.Logger
	maxBatch     int
	arenas       []arena    // per shard, used under that shard's lock
	refs         []keyq.Ref // Replace/Resync scratch, used under every lock
}

func newCore(opts cache.DeltaFIFOOptions, c keyq.Config) (*core, error) {
	set, err := keyq.New[cache.Deltas](c)
	if err != nil {
		return nil, fmt.Errorf("deltafifo: %w", err)
	}
	f := &core{
		set:          set,
		keys:         keyq.NewKeyFunc(opts.KeyFunction),
		known:        opts.KnownObjects,
		emitReplaced: opts.EmitDeltaTypeReplaced,
		transform:    opts.Transformer,
		name:         "DeltaFIFO",
		logger:       klog.Background(),
		maxBatch:     DefaultMaxBatch,
		arenas:       make([]arena, set.Shards()),
	}
	if opts.Name != "" {
		f.name = opts.Name
	}
	if opts.Logger != nil {
		f.logger = *opts.Logger
	}
	f.logger = klog.LoggerWithName(f.logger, f.name)
	return f, nil
}

// KeyOf returns obj's key, looking through a Deltas (its newest object) and
// a DeletedFinalStateUnknown (its Key), as client-go's DeltaFIFO.KeyOf does.
func (f *core) KeyOf(obj any) (string, error) {
	var scratch [keyq.ScratchSize]byte
	ks, kb, err := f.keyOf(obj, scratch[:0])
	if err != nil {
		return "", err
	}
	return keyq.KeyString(ks, kb), nil
}

// keyOf is KeyOf with the key as keyq passes it: in kb (backed by scratch)
// when non-nil, else in ks.
func (f *core) keyOf(obj any, scratch []byte) (ks string, kb []byte, err error) {
	if d, ok := obj.(cache.Deltas); ok {
		if len(d) == 0 {
			return "", nil, cache.KeyError{Obj: obj, Err: cache.ErrZeroLengthDeltasObject}
		}
		obj = d.Newest().Object
	}
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return d.Key, nil, nil
	}
	return f.keys.Key(obj, scratch)
}

// transformed applies the Transformer to an object entering the queue;
// tombstones (and Sync deltas, which carry objects already transformed) are
// passed through.
func (f *core) transformed(obj any) (any, error) {
	if f.transform == nil {
		return obj, nil
	}
	return f.transformNonNil(obj)
}

// transformNonNil is transformed with a Transformer set, out of line so
// that transformed inlines into every write.
func (f *core) transformNonNil(obj any) (any, error) {
	if _, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return obj, nil
	}
	return f.transform(obj)
}

// Transformer returns the configured TransformFunc, so a Reflector applies
// it to its own temporary stores too (cache.TransformingStore).
func (f *core) Transformer() cache.TransformFunc { return f.transform }

// Add appends an Added delta to obj's key, queueing the key if it had none.
func (f *core) Add(obj any) error { return f.write(cache.Added, obj) }

// Update appends an Updated delta to obj's key, queueing the key if it had
// none.
func (f *core) Update(obj any) error { return f.write(cache.Updated, obj) }

func (f *core) write(t cache.DeltaType, obj any) error {
	var scratch [keyq.ScratchSize]byte
	ks, kb, err := f.keyOf(obj, scratch[:0])
	if err != nil {
		return cache.KeyError{Obj: obj, Err: err}
	}
	if obj, err = f.transformed(obj); err != nil {
		return err
	}
	f.set.Produce(ks, kb, true, func(sh int, sl *keyq.Slot[cache.Deltas]) keyq.Effect {
		return f.arenas[sh].add(sl, cache.Delta{Type: t, Object: obj})
	})
	return nil
}

// Delete appends a Deleted delta, unless the key has neither queued deltas
// nor an object in KnownObjects: then the deletion was already reported
// (by a Replace's tombstone, say) and is ignored. The key stays where it is
// in the queue; the consumer learns of the deletion when it pops it.
func (f *core) Delete(obj any) error {
	var scratch [keyq.ScratchSize]byte
	ks, kb, err := f.keyOf(obj, scratch[:0])
	if err != nil {
		return cache.KeyError{Obj: obj, Err: err}
	}
	var terr error
	f.set.Produce(ks, kb, f.known != nil, func(sh int, sl *keyq.Slot[cache.Deltas]) keyq.Effect {
		if len(sl.Acc) == 0 {
			if f.known == nil {
				return keyq.Empty | keyq.Forget
			}
			if _, exists, err := f.known.GetByKey(sl.Key); err == nil && !exists {
				return keyq.Empty | keyq.Forget
			}
		}
		// The transformer runs here, under the lock, so an ignored
		// deletion never reaches it (as in client-go).
		o, err := f.transformed(obj)
		if err != nil {
			terr = err
			if len(sl.Acc) == 0 {
				return keyq.Empty | keyq.Forget
			}
			return 0
		}
		return f.arenas[sh].add(sl, cache.Delta{Type: cache.Deleted, Object: o})
	})
	return terr
}

// Pop blocks until a key is queued, removes it with all its Deltas and calls
// process(deltas, isInInitialList) under the key's lock (so the consumer can
// update KnownObjects consistently with Delete, Replace and Resync). It
// returns the Deltas and process's error; with ErrRequeue the Deltas go
// back if the key has none meanwhile and Pop returns the inner error. Once
// the queue is closed and empty, Pop returns cache.ErrFIFOClosed.
func (f *core) Pop(process cache.PopProcessFunc) (any, error) {
	var popped any // boxed once: process and the caller get the same value
	var perr error
	err := f.set.Pop(func(sl *keyq.Slot[cache.Deltas], initial bool) (bool, keyq.Effect) {
		ds := sl.Acc
		if len(ds) == 0 {
			return false, keyq.Empty // cannot happen: queued keys have deltas
		}
		sl.Acc = nil
		popped = ds
		perr = process(popped, initial)
		if rq, ok := queues.AsRequeue(perr); ok {
			perr = rq.Err
			f.set.MarkPopulated()
			sl.Acc = ds
			return true, keyq.Enqueue
		}
		return true, emptied(ds)
	})
	if err != nil {
		return nil, err
	}
	return popped, perr
}

// emptied is the Effect of taking ds out of its slot: the key's interned
// slot is kept for its next event, unless the object is gone.
func emptied(ds cache.Deltas) keyq.Effect {
	if ds[len(ds)-1].Type == cache.Deleted {
		return keyq.Empty | keyq.Forget
	}
	return keyq.Empty
}

// AddIfNotPresent queues deltas (a Deltas, as Pop returned it) only if its
// key has no deltas, so a consumer can put back what it popped without
// clobbering newer events. [ext: client-go dropped it]
func (f *core) AddIfNotPresent(obj any) error {
	ds, ok := obj.(cache.Deltas)
	if !ok {
		return cache.KeyError{Obj: obj, Err: errNotDeltas}
	}
	var scratch [keyq.ScratchSize]byte
	ks, kb, err := f.keyOf(ds, scratch[:0])
	if err != nil {
		return cache.KeyError{Obj: obj, Err: err}
	}
	f.set.Produce(ks, kb, true, func(_ int, sl *keyq.Slot[cache.Deltas]) keyq.Effect {
		if len(sl.Acc) > 0 {
			return 0
		}
		sl.Acc = ds
		return keyq.Enqueue
	})
	return nil
}

var errNotDeltas = errors.New("object is not a cache.Deltas")

// HasSynced reports whether the first Replace's keys (listed and deleted)
// have all been popped, or a single-key write came before any Replace.
func (f *core) HasSynced() bool { return f.set.HasSynced() }

// HasSyncedChecker returns the queue itself, whose Done channel closes when
// HasSynced turns true.
func (f *core) HasSyncedChecker() cache.DoneChecker { return f }

// Name implements cache.DoneChecker: DeltaFIFOOptions.Name, or "DeltaFIFO".
func (f *core) Name() string { return f.name }

// Done implements cache.DoneChecker.
func (f *core) Done() <-chan struct{} { return f.set.Done() }

// Close makes Pop return cache.ErrFIFOClosed once the queue is empty, waking
// the Pops that wait.
func (f *core) Close() { f.set.Close() }

// IsClosed reports whether Close was called.
func (f *core) IsClosed() bool { return f.set.IsClosed() }

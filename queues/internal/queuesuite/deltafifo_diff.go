package queuesuite

import (
	"errors"
	"slices"
	"testing"

	"github.com/queuelab/queuelab/guarantee"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// DiffDeltaFIFO replays the operations encoded in ops (Add, Update, Delete
// of objects and of tombstones, Replace, Resync, Pop, PopBatch over a
// handful of keys) on a DeltaFIFO from newDeltaFIFO and on client-go's
// cache.DeltaFIFO, each consumer keeping its own KnownObjects as an informer
// does, and fails at the first observable difference, printing the trace.
//
// Keys of a DeltaFIFO interact only through order and HasSynced, so the
// reference is one client-go DeltaFIFO per key, fed that key's share of
// every operation and a KnownObjects view of that key alone: whichever key
// the candidate pops, that key's reference must pop the same Deltas. A
// queue declaring guarantee.OrderFIFO must pop a key queued no later than any
// other (keys queued by one Replace or Resync tie); per-shard queues are
// compared per key only. HasSynced and isInInitialList are compared with
// client-go's rule: synced once populated and every key queued by the first
// Replace has been popped. A cache.QueueWithBatch also gets PopBatch calls,
// each checked as the equivalent Pops. ops may be any bytes.
func DiffDeltaFIFO(t *testing.T, newDeltaFIFO NewDeltaFIFO, ops []byte, c Config) {
	d := &deltaDiff{
		diffBase:  newDiffBase(t, ops),
		candKnown: cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc),
		refKnown:  cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc),
		fifo:      c.Order == guarantee.OrderFIFO,
	}
	emit := d.src.Intn(2) == 1
	d.tr.add("new DeltaFIFO (EmitDeltaTypeReplaced=%v)", emit)
	d.cand = newDeltaFIFO(t, cache.DeltaFIFOOptions{KnownObjects: d.candKnown, EmitDeltaTypeReplaced: emit})
	d.batch, _ = d.cand.(cache.QueueWithBatch)
	for i := range diffKeys {
		d.refs[i] = cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{
			KnownObjects:          oneKey{store: d.refKnown, k: key(diffName(i))},
			EmitDeltaTypeReplaced: emit,
		})
	}
	for d.step = 0; d.step < diffSteps && !d.src.Done(); d.step++ {
		d.next()
		d.checkSynced()
	}
	d.finish()
}

type deltaDiff struct {
	diffBase
	batch     cache.QueueWithBatch // nil unless the candidate has PopBatch
	candKnown cache.Store          // the candidate consumer's KnownObjects
	refs      [diffKeys]*cache.DeltaFIFO
	refKnown  cache.Store // the reference consumer's KnownObjects
	fifo      bool        // check global FIFO order
	step      int
	last      [diffKeys]*metav1.PartialObjectMetadata // newest object made per key

	// What client-go's rules say about the queue:
	pending [diffKeys]bool // the key has deltas queued
	since   [diffKeys]int  // step at which it got them
}

// newObj is diffBase's, remembering the object as key i's newest.
func (d *deltaDiff) newObj(i int) *metav1.PartialObjectMetadata {
	d.last[i] = d.diffBase.newObj(i)
	return d.last[i]
}

func (d *deltaDiff) queued(i int) {
	if !d.pending[i] {
		d.pending[i], d.since[i] = true, d.step
	}
}

func (d *deltaDiff) known(i int) bool {
	_, ok, _ := d.refKnown.GetByKey(key(diffName(i)))
	return ok
}

func (d *deltaDiff) next() {
	i := d.src.Intn(diffKeys)
	switch op := d.src.Intn(12); {
	case op <= 1:
		o := d.newObj(i)
		d.tr.add("Add(%s)", describeOne(o))
		writeBoth(&d.tr, &d.sync, d.cand, d.refs[i], o, cache.Queue.Add, (*cache.DeltaFIFO).Add)
		d.queued(i)
	case op == 2:
		o := d.newObj(i)
		d.tr.add("Update(%s)", describeOne(o))
		writeBoth(&d.tr, &d.sync, d.cand, d.refs[i], o, cache.Queue.Update, (*cache.DeltaFIFO).Update)
		d.queued(i)
	case op <= 4:
		var o any = d.last[i]
		if d.last[i] == nil || op == 4 {
			o = tomb(diffName(i), nil) // a tombstone; with the newest object if there is one
			if d.last[i] != nil {
				o = tomb(diffName(i), d.last[i])
			}
		}
		d.tr.add("Delete(%s)", describeOne(o))
		if d.pending[i] || d.known(i) {
			d.queued(i)
		}
		writeBoth(&d.tr, &d.sync, d.cand, d.refs[i], o, cache.Queue.Delete, (*cache.DeltaFIFO).Delete)
	case op == 5:
		d.replace()
	case op == 6:
		resyncBoth(&d.tr, d.cand, d.refs[:], func(j int) {
			if d.known(j) {
				d.queued(j)
			}
		})
	case op <= 9 || d.batch == nil:
		d.pop()
	default:
		d.popBatch()
	}
}

func (d *deltaDiff) replace() {
	per := d.tr.replaceCandidate(&d.src, d.newObj, d.cand)
	for i, r := range d.refs {
		if len(per[i]) > 0 || d.pending[i] || d.known(i) {
			d.queued(i)
		}
		d.tr.check(r.Replace(per[i], "rv"), "reference Replace")
	}
	d.sync.replaced(d.pending)
}

func (d *deltaDiff) pop() {
	if !slices.Contains(d.pending[:], true) {
		return // a Pop would block
	}
	var got cache.Deltas
	var initial bool
	_, err := d.cand.Pop(func(item any, isInitial bool) error {
		ds, ok := item.(cache.Deltas)
		if !ok {
			d.tr.fail("Pop gave process a %T, want cache.Deltas", item)
		}
		got, initial = ds, isInitial
		return ApplyDeltas(d.candKnown, ds)
	})
	d.tr.check(err, "candidate Pop")
	d.tr.add("Pop() -> %s initial=%v", describeOne(got), initial)
	d.popped(got, initial)
}

func (d *deltaDiff) popBatch() {
	if !slices.Contains(d.pending[:], true) {
		return
	}
	d.tr.add("PopBatch():")
	err := d.batch.PopBatch(func(deltas []cache.Delta, initial bool) error {
		if len(deltas) > maxBatch {
			d.tr.fail("batch of %d deltas, more than %d", len(deltas), maxBatch)
		}
		seen := make(map[int]bool, len(deltas))
		for _, dl := range deltas {
			ds := cache.Deltas{dl}
			d.tr.add("  batch item %s initial=%v", describeOne(ds), initial)
			if i, ok := diffIndex(ds); ok && seen[i] {
				d.tr.fail("a batch holds two deltas of %s", diffName(i))
			} else {
				seen[i] = true
			}
			if err := ApplyDeltas(d.candKnown, ds); err != nil {
				return err
			}
			d.popped(ds, initial)
		}
		return nil
	}, func(item any, initial bool) error {
		ds, ok := item.(cache.Deltas)
		if !ok {
			d.tr.fail("PopBatch gave processSingle a %T, want cache.Deltas", item)
		}
		d.tr.add("  single %s initial=%v", describeOne(ds), initial)
		if err := ApplyDeltas(d.candKnown, ds); err != nil {
			return err
		}
		d.popped(ds, initial)
		return nil
	})
	d.tr.check(err, "candidate PopBatch")
}

// popped checks one key the candidate popped against its reference and the
// rules, and pops the reference.
func (d *deltaDiff) popped(got cache.Deltas, initial bool) {
	i, ok := diffIndex(got)
	if !ok {
		d.tr.fail("candidate popped %s, not a key of the test universe", describeOne(got))
	}
	if !d.pending[i] {
		d.tr.fail("candidate popped %s, which has no deltas queued", diffName(i))
	}
	if d.fifo {
		for j, p := range d.pending {
			if p && d.since[j] < d.since[i] {
				d.tr.fail("FIFO order: popped %s (queued at op %d) before %s (queued at op %d)",
					diffName(i), d.since[i], diffName(j), d.since[j])
			}
		}
	}
	var want cache.Deltas
	_, err := d.refs[i].Pop(func(item any, _ bool) error {
		want = item.(cache.Deltas)
		return ApplyDeltas(d.refKnown, want)
	})
	d.tr.check(err, "reference Pop")
	if describeOne(got) != describeOne(want) {
		d.tr.fail("candidate popped %s, client-go pops %s", describeOne(got), describeOne(want))
	}
	d.sync.popped(&d.tr, i, initial)
	d.pending[i] = false
}

// finish closes the candidate and drains it; it must hand out exactly the
// keys with deltas queued, then report cache.ErrFIFOClosed.
func (d *deltaDiff) finish() {
	d.drain(&d.pending, func() {
		if d.batch != nil && d.src.Intn(2) == 1 {
			d.popBatch()
		} else {
			d.pop()
		}
	})
	_, err := d.cand.Pop(func(item any, _ bool) error {
		d.tr.fail("closed queue popped %s after every key with deltas", describeOne(item))
		return nil
	})
	if !errors.Is(err, cache.ErrFIFOClosed) {
		d.tr.fail("Pop of the closed, drained queue: err = %v, want cache.ErrFIFOClosed", err)
	}
}

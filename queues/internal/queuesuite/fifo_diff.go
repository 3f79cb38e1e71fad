package queuesuite

import (
	"errors"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// DiffFIFO replays the operations encoded in ops (Add, Update, Delete,
// Replace, Resync, Pop over a handful of keys) on a FIFO from newFIFO and on
// client-go's cache.FIFO, and fails at the first observable difference,
// printing the operation trace.
//
// A FIFO's keys do not interact, except through order and HasSynced, so the
// reference is one client-go FIFO per key, fed that key's share of every
// operation: whichever key the candidate pops — in any order it declares —
// that key's reference must pop the very same object. Pops are generated
// only while some key holds a value. HasSynced is compared with client-go's
// rule (populated, and the first Replace's entries popped) whenever that is
// determined: once a key of the initial list is deleted while queued (or a
// second Replace discards initial entries), client-go's own answer depends
// on where its random Replace order put the stale entry, so from then on
// only monotonicity and the Done channel are checked. ops may be any bytes
// (the fuzz targets pass fuzz input).
func DiffFIFO(t *testing.T, newFIFO NewFIFO, ops []byte, c Config) {
	d := &fifoDiff{diffBase: newDiffBase(t, ops)}
	d.cand = newFIFO(t, cache.MetaNamespaceKeyFunc)
	for i := range diffKeys {
		d.refs[i] = cache.NewFIFO(cache.MetaNamespaceKeyFunc)
	}
	for step := 0; step < diffSteps && !d.src.Done(); step++ {
		d.step()
		d.checkSynced()
	}
	d.finish()
}

type fifoDiff struct {
	diffBase
	refs    [diffKeys]*cache.FIFO
	present [diffKeys]bool // the key holds a value: a Pop may return it
}

func (d *fifoDiff) step() {
	i := d.src.Intn(diffKeys)
	switch op := d.src.Intn(8); {
	case op <= 1:
		o := d.newObj(i)
		d.tr.add("Add(%s@%s)", o.Name, o.ResourceVersion)
		writeBoth(&d.tr, &d.sync, d.cand, d.refs[i], o, cache.Queue.Add, (*cache.FIFO).Add)
		d.present[i] = true
	case op == 2:
		o := d.newObj(i)
		d.tr.add("Update(%s@%s)", o.Name, o.ResourceVersion)
		writeBoth(&d.tr, &d.sync, d.cand, d.refs[i], o, cache.Queue.Update, (*cache.FIFO).Update)
		d.present[i] = true
	case op == 3:
		o := d.newObj(i)
		d.tr.add("Delete(%s)", o.Name)
		if d.present[i] && d.sync.initial[i] {
			d.sync.certain = false // a stale initial entry, somewhere in client-go's random order
		}
		writeBoth(&d.tr, &d.sync, d.cand, d.refs[i], o, cache.Queue.Delete, (*cache.FIFO).Delete)
		d.present[i] = false
	case op == 4:
		d.replace()
	case op == 5:
		resyncBoth(&d.tr, d.cand, d.refs[:], nil)
	default:
		d.pop()
	}
}

func (d *fifoDiff) replace() {
	per := d.tr.replaceCandidate(&d.src, d.newObj, d.cand)
	for i, r := range d.refs {
		d.tr.check(r.Replace(per[i], "rv"), "reference Replace")
		d.present[i] = len(per[i]) > 0
	}
	if !d.sync.replaced(d.present) && !d.sync.synced() {
		d.sync.certain = false // client-go counts on through the new list
	}
}

func (d *fifoDiff) pop() {
	if !slices.Contains(d.present[:], true) {
		return // a Pop would block
	}
	p := popOnce(d.cand, nil)
	d.tr.check(p.err, "candidate Pop")
	i, ok := diffIndex(p.item)
	if !ok {
		d.tr.fail("candidate popped %#v, not an object of the test universe", p.item)
	}
	d.tr.add("Pop() -> %s (initial=%v)", describe([]any{p.item}), p.initial)
	if p.returned != p.item {
		d.tr.fail("Pop returned %v but process got %v", p.returned, p.item)
	}
	if !d.present[i] {
		d.tr.fail("candidate popped %s, which holds no value", diffName(i))
	}
	want := popOnce(d.refs[i], nil)
	if want.item != p.item {
		d.tr.fail("candidate popped %s, client-go pops %s", describe([]any{p.item}), describe([]any{want.item}))
	}
	d.present[i] = false
	d.sync.popped(&d.tr, i, p.initial)
}

// finish closes the candidate and pops the rest, which must be exactly the
// keys still holding values, then cache.ErrFIFOClosed.
func (d *fifoDiff) finish() {
	d.drain(&d.present, d.pop)
	if p := popOnce(d.cand, nil); !errors.Is(p.err, cache.ErrFIFOClosed) {
		d.tr.fail("Pop of the closed, drained FIFO: got %s, %v; want cache.ErrFIFOClosed", describeOne(p.item), p.err)
	}
	d.checkSynced()
}

// diffIndex returns the universe index of a test object (or of a Deltas'
// newest object, or a tombstone's key).
func diffIndex(item any) (int, bool) {
	k, err := itemKey(item)
	if err != nil {
		return 0, false
	}
	for i := range diffKeys {
		if k == key(diffName(i)) {
			return i, true
		}
	}
	return 0, false
}

// describe renders objects as name@rv for traces.
func describe(items []any) string {
	s := "["
	for j, it := range items {
		if j > 0 {
			s += " "
		}
		s += describeOne(it)
	}
	return s + "]"
}

func describeOne(it any) string {
	switch o := it.(type) {
	case *metav1.PartialObjectMetadata:
		if o == nil {
			return "nil"
		}
		return o.Name + "@" + o.ResourceVersion
	case cache.DeletedFinalStateUnknown:
		return "tombstone(" + o.Key + "," + describeOne(o.Obj) + ")"
	case cache.Deltas:
		s := "{"
		for j, d := range o {
			if j > 0 {
				s += " "
			}
			s += string(d.Type) + ":" + describeOne(d.Object)
		}
		return s + "}"
	case nil:
		return "nil"
	default:
		return "?"
	}
}

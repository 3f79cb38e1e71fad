package queuesuite

// The machinery the FIFO and DeltaFIFO differential checks share: the
// common state, client-go's HasSynced model and the writes and Replaces
// every check applies to candidate and reference alike.

import (
	"slices"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// syncModel is client-go's HasSynced rule for FIFO and DeltaFIFO alike,
// evaluated by the differential harnesses: synced once populated and every
// key queued by the first Replace has been popped. (client-go counts pops;
// under FIFO order that is the same, and it is what a per-shard order must
// mean.) certain turns false where client-go's own answer depends on its
// random Replace order; from then on only monotonicity and the Done
// channel are checked.
type syncModel struct {
	populated bool
	initial   map[int]bool // keys of the first Replace not popped yet
	certain   bool
}

// synced is client-go's answer. It never turns false again: initial is
// filled only before populated is set, and only shrinks after.
func (m *syncModel) synced() bool { return m.populated && len(m.initial) == 0 }

// replaced records a Replace after which queued says which keys are queued:
// the first one populates the queue and makes them the initial list. It
// reports whether this was that first Replace.
func (m *syncModel) replaced(queued [diffKeys]bool) bool {
	if m.populated {
		return false
	}
	m.populated = true
	m.initial = make(map[int]bool)
	for i, q := range queued {
		if q {
			m.initial[i] = true
		}
	}
	return true
}

// popped checks the isInInitialList the candidate passed with key i against
// client-go's rule, and counts i as popped.
func (m *syncModel) popped(tr *trace, i int, initial bool) {
	if m.certain && initial != m.initial[i] {
		tr.fail("%s: isInInitialList = %v, client-go says %v", diffName(i), initial, m.initial[i])
	}
	delete(m.initial, i)
}

// check compares the candidate's HasSynced with client-go's rule.
func (m *syncModel) check(tr *trace, cand cache.Queue, last *bool) {
	if got := tr.synced(cand, last); m.certain && got != m.synced() {
		tr.fail("HasSynced() = %v, client-go says %v", got, m.synced())
	}
}

// check fails the run on an operation's unexpected error.
func (tr *trace) check(err error, what string) {
	tr.t.Helper()
	if err != nil {
		tr.fail("%s: unexpected error %v", what, err)
	}
}

// writeBoth applies one write (Add, Update or Delete) to the candidate and
// to the key's reference queue, either of which may be a FIFO or a
// DeltaFIFO; any write populates the queue for HasSynced.
func writeBoth[R any](tr *trace, m *syncModel, cand cache.Queue, ref R, o any, candOp func(cache.Queue, any) error, refOp func(R, any) error) {
	tr.check(candOp(cand, o), "candidate write")
	tr.check(refOp(ref, o), "reference write")
	m.populated = true
}

// resyncBoth resyncs the candidate and every key's reference queue;
// resynced, if not nil, learns each key after its reference resynced.
func resyncBoth[R interface{ Resync() error }](tr *trace, cand cache.Queue, refs []R, resynced func(i int)) {
	tr.add("Resync()")
	tr.check(cand.Resync(), "Resync")
	for i, r := range refs {
		tr.check(r.Resync(), "reference Resync")
		if resynced != nil {
			resynced(i)
		}
	}
}

// replaceCandidate draws a Replace list, logs it and applies it to the
// candidate; it returns the list split per key for the reference queues.
func (tr *trace) replaceCandidate(src *suite.Ops, newObj func(i int) *metav1.PartialObjectMetadata, cand cache.Queue) [diffKeys][]any {
	list, per := genList(src, newObj)
	tr.add("Replace(%s)", describe(list))
	tr.check(cand.Replace(append([]any(nil), list...), "rv"), "candidate Replace")
	return per
}

// diffBase is what the FIFO and DeltaFIFO differential checks have in
// common: the trace, the operation bytes, the candidate and client-go's
// HasSynced model for it.
type diffBase struct {
	tr     trace
	src    suite.Ops
	cand   cache.Queue
	sync   syncModel
	synced bool // the candidate's last HasSynced
	rv     int  // the last resource version made
}

func newDiffBase(t *testing.T, ops []byte) diffBase {
	return diffBase{tr: trace{t: t}, src: suite.NewOps(ops), sync: syncModel{certain: true}}
}

// newObj makes a fresh object for key i, with the next resource version.
func (d *diffBase) newObj(i int) *metav1.PartialObjectMetadata {
	d.rv++
	return obj(diffName(i), strconv.Itoa(d.rv))
}

// checkSynced compares the candidate's HasSynced with client-go's rule.
func (d *diffBase) checkSynced() { d.sync.check(&d.tr, d.cand, &d.synced) }

// drain closes the candidate and, while queued names a key with something
// left, pops one more with pop and checks HasSynced again.
func (d *diffBase) drain(queued *[diffKeys]bool, pop func()) {
	d.tr.add("Close(); drain")
	d.cand.Close()
	for slices.Contains(queued[:], true) {
		pop()
		d.checkSynced()
	}
}

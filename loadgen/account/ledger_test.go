package account

import (
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func name(k int) string { return "k" + strconv.Itoa(k) }

func TestCoverSeqMeasuresFromOldestPendingChange(t *testing.T) {
	l := New(4)
	l.Emit(1, 1, false, 100)
	l.Emit(1, 2, false, 150)
	assert.EqualValues(t, 1, l.Uncovered(), "one key pending, however many changes")
	seq := l.Seq(1)
	l.Emit(1, 3, false, 160) // arrives while the reconcile runs
	_, ok := l.CoverSeq(1, seq, 200)
	assert.False(t, ok, "a change arrived after the reconcile started")
	seq = l.Seq(1)
	lat, ok := l.CoverSeq(1, seq, 300)
	require.True(t, ok)
	assert.EqualValues(t, 200, lat, "latency runs from the oldest uncovered change")
	assert.Zero(t, l.Uncovered())
	_, ok = l.CoverSeq(1, seq, 400)
	assert.False(t, ok, "nothing pending: no sample")
	assert.Empty(t, l.Verify(Expect{Name: name, Reconciled: true}))
}

func TestCoverStateNeedsTheNewestState(t *testing.T) {
	l := New(2)
	l.Emit(0, 10, false, 0)
	_, ok := l.CoverState(0, 9, true, 5)
	assert.False(t, ok, "an older object does not cover")
	_, ok = l.CoverState(0, 10, false, 5)
	assert.False(t, ok, "absence does not cover an add")
	lat, ok := l.CoverState(0, 10, true, 5)
	assert.True(t, ok)
	assert.EqualValues(t, 5, lat)

	l.Emit(0, 11, true, 10)
	_, ok = l.CoverState(0, 10, true, 12)
	assert.False(t, ok, "the object still being there does not cover its delete")
	_, ok = l.CoverState(0, 0, false, 12)
	assert.True(t, ok)
}

// TestDeleteOwedUntilHandlerSeesIt is the lost-delete false alarm of
// TestRunIsLedgerClean: a reconcile that reads the store after the
// informer applied a deletion covers the key before the handler is told,
// so Uncovered alone let a run stop with the notification still queued
// (client-go's informer drops it at stop too). OwedDeletes keeps the run
// going until the handler has seen it.
func TestDeleteOwedUntilHandlerSeesIt(t *testing.T) {
	l := New(2)
	l.Emit(0, 1, false, 10)
	l.Emit(0, 2, true, 20)
	_, covered := l.CoverState(0, 0, false, 30) // the store already lacks it
	require.True(t, covered)
	assert.Zero(t, l.Uncovered())
	assert.EqualValues(t, 1, l.OwedDeletes(), "covered, but the handler has not seen the deletion")
	l.Deleted(0)
	assert.Zero(t, l.OwedDeletes())
	l.Deleted(1) // an extra deletion: Verify reports it, draining need not wait
	assert.EqualValues(t, -1, l.OwedDeletes())
}

func TestVerifyReportsEveryViolation(t *testing.T) {
	l := New(3)
	l.Emit(0, 5, false, 0) // never reconciled
	l.Emit(1, 6, true, 0)  // delete the handler never saw
	require.True(t, l.Enter(2))
	assert.False(t, l.Enter(2), "a second worker on the same key")
	l.Exit(2)
	l.Applied(2, 7, false)
	r := l.BeforeRead(2)
	l.CheckRead(2, r, true, 7)
	l.CheckRead(2, r, false, 0)
	require.Len(t, l.Verify(Expect{Name: name}), 1, "reading what was applied, or nothing, is fine")
	l.CheckRead(2, r, true, 6)
	vs := l.Verify(Expect{
		Name:       name,
		Truth:      func(k int) (uint64, bool) { return map[int]uint64{0: 5}[k], k == 0 },
		Stored:     map[int]uint64{0: 4, 2: 1},
		Foreign:    []string{"elsewhere/x"},
		Reconciled: true,
		Deletes:    true,
	})
	got := map[Check][]string{}
	for _, v := range vs {
		got[v.Check] = append(got[v.Check], v.Keys...)
	}
	assert.ElementsMatch(t, []string{"k0", "k2", "elsewhere/x"}, got[StoreMismatch])
	assert.ElementsMatch(t, []string{"k0", "k1"}, got[NotReconciled])
	assert.Equal(t, []string{"k2"}, got[ConcurrentReconcile])
	assert.Equal(t, []string{"k1"}, got[DeleteMismatch])
	assert.Equal(t, []string{"k2"}, got[StaleRead])
	assert.Contains(t, Summary(vs), "truth rv=5, store rv=4")
}

func TestCheckReadAfterDelete(t *testing.T) {
	l := New(1)
	l.Applied(0, 9, true)
	r := l.BeforeRead(0)
	l.CheckRead(0, r, true, 10) // re-created since: fine
	assert.Empty(t, l.Verify(Expect{Name: name}))
	l.CheckRead(0, r, true, 9) // the deleted object is still there
	vs := l.Verify(Expect{Name: name})
	require.Len(t, vs, 1)
	assert.Equal(t, StaleRead, vs[0].Check)
}

func TestCheckReadAbsent(t *testing.T) {
	stored := func() *Ledger {
		l := New(1)
		l.Begin(0)
		l.Applied(0, 3, false)
		return l
	}

	l := stored()
	r := l.BeforeRead(0)
	l.CheckRead(0, r, false, 0) // stored, nothing written since: the store lost it
	vs := l.Verify(Expect{Name: name})
	require.Len(t, vs, 1)
	assert.Equal(t, StaleRead, vs[0].Check)

	l = stored()
	r = l.BeforeRead(0)
	l.Begin(0) // a delete raced the read
	l.CheckRead(0, r, false, 0)
	assert.Empty(t, l.Verify(Expect{Name: name}))

	l = stored()
	l.Begin(0) // a write was in flight when the read began
	r = l.BeforeRead(0)
	l.CheckRead(0, r, false, 0)
	assert.Empty(t, l.Verify(Expect{Name: name}))

	l = New(1)
	l.Begin(0)
	l.Applied(0, 3, true) // deleted before the read: absent is right
	r = l.BeforeRead(0)
	l.CheckRead(0, r, false, 0)
	assert.Empty(t, l.Verify(Expect{Name: name}))
}

// TestSlotFitsOneLine pins the slot's size: adding a field to the books
// should be a decision to spill onto a second cache line, not an accident.
func TestSlotFitsOneLine(t *testing.T) {
	assert.EqualValues(t, 64, unsafe.Sizeof(slot{}))
}

func TestRenotifyBoundAndFlags(t *testing.T) {
	l := New(3)
	l.Renotified(0)
	l.Renotified(1)
	l.Renotified(1)
	l.Flag(Regressed, 2)
	l.Flag(HandlerLost, 2)
	vs := l.Verify(Expect{Name: name, Renotify: 1})
	got := map[Check][]string{}
	for _, v := range vs {
		got[v.Check] = append(got[v.Check], v.Keys...)
	}
	assert.Equal(t, []string{"k1"}, got[Renotify], "one renotification per relist or resync, two is one too many")
	assert.Equal(t, []string{"k2"}, got[Regressed])
	assert.Equal(t, []string{"k2"}, got[HandlerLost])
	assert.Empty(t, got[Isolation])
	assert.Contains(t, Summary(vs), "2 notifications of a version already stored, 1 allowed")
}

func TestSkipForgivesOnlyTheNewestState(t *testing.T) {
	l := New(1)
	l.Emit(0, 1, false, 0)
	l.Emit(0, 2, false, 0)
	assert.False(t, l.Skip(0, 1, true), "an older state forgives nothing: version 2's notification is still owed")
	assert.EqualValues(t, 1, l.Uncovered())
	assert.True(t, l.Skip(0, 2, true))
	assert.Zero(t, l.Uncovered())
	assert.EqualValues(t, 2, l.Skipped())
	assert.Empty(t, l.Verify(Expect{Name: name, Reconciled: true}))
}

func TestLate(t *testing.T) {
	v := Late(1500*time.Millisecond, time.Second)
	assert.Equal(t, Unconverged, v.Check)
	assert.Contains(t, Summary([]Violation{v}), "drained 1.5s after the stream ended, bound 1s")
}

// TestCollapsedDeletes: after an unscripted relist a key may have been
// told of fewer deletions than emitted, never more, and of one at least
// if it ends deleted.
func TestCollapsedDeletes(t *testing.T) {
	l := New(3)
	for k := range 3 {
		l.Emit(k, 1, true, 0)
		l.Emit(k, 2, false, 0)
		l.Emit(k, 3, true, 0)
	}
	l.Deleted(0) // ends deleted, one of two seen: merged away
	l.Deleted(2)
	l.Deleted(2)
	l.Deleted(2) // more than emitted
	// key 1 ends deleted and its handler saw none
	final := func(int) (uint64, bool) { return 0, false }
	got := map[Check][]string{}
	for _, v := range l.Verify(Expect{Name: name, Truth: final, Stored: map[int]uint64{}, Deletes: true, Collapsed: true}) {
		got[v.Check] = v.Keys
	}
	assert.Equal(t, []string{"k1", "k2"}, got[DeleteMismatch])
	strict := l.Verify(Expect{Name: name, Truth: final, Stored: map[int]uint64{}, Deletes: true})
	require.Len(t, strict, 1)
	assert.Equal(t, 3, strict[0].Count)
}

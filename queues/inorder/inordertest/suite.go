package inordertest

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/inorder"
)

// Run checks the in-order FIFO contract (see the package doc) on queues
// built by newQueue, which builds a fresh, empty queue honouring opts or
// returns an error for options the implementation does not offer (one
// that Run's declared modes need fails the test): one subtest per property, each on fresh queues under a
// deadlock watchdog, skipping the properties of the modes g does not
// declare.
func Run(t *testing.T, newQueue func(opts inorder.Options) (inorder.Queue, error), g Guarantees) {
	t.Helper()
	s := inorderSuite{Guarantees: g, newQ: perTest(newQueue)}
	atomic, perObject := g.atomicOnly(), g.perObjectOnly()
	suite.Run(t, watchdog.DefaultTimeout, []suite.Property{
		{Name: "every-event-in-arrival-order", Run: s.arrivalOrder},
		{Name: "replace-resync-bookmark-are-one-event-each", Skip: atomic, Run: s.atomicEvents},
		{Name: "no-bookmarks-option-drops-them", Skip: atomic, Run: s.noBookmarks},
		{Name: "synced-once-the-first-replace-is-processed", Skip: atomic, Run: s.syncedAfterReplace},
		{Name: "synced-at-a-write-before-any-replace", Skip: atomic, Run: s.syncedAtWrite},
		{Name: "pop-batch-runs-of-distinct-keys", Skip: atomic, Run: s.popBatchRuns},
		{Name: "pop-batch-at-most-batch-size", Run: s.popBatchSize},
		{Name: "writers-not-blocked-by-processing", Skip: suite.Unless(g.Atomic, noAtomic), Run: s.unlockedProcessing},
		{Name: "lock-while-processing-option-accepted", Skip: suite.Unless(g.Atomic && g.LockWhileProcessing, noLocked), Run: s.lockedProcessing},
		{Name: "close-wakes-a-blocked-pop", Run: s.closeWakes},
		{Name: "close-hands-out-what-is-queued-first", Run: s.closeDrains},
		{Name: "bad-input-queues-nothing", Run: s.badInput},
		{Name: "transformer-applied-once-on-entry", Skip: atomic, Run: s.transformer},
		{Name: "hammer-exact-accounting", Run: s.hammer},
		{Name: "per-object-replace-reconciles-queue-and-known", Skip: perObject, Run: s.perObjectReplace},
		{Name: "per-object-replace-bad-key-queues-nothing", Skip: perObject, Run: s.perObjectBadReplace},
		{Name: "per-object-resync-skips-queued-keys", Skip: perObject, Run: s.perObjectResync},
		{Name: "per-object-synced-after-the-relist-events", Skip: perObject, Run: s.perObjectSynced},
		{Name: "per-object-batch-stops-at-the-initial-list", Skip: perObject, Run: s.perObjectBatchBoundary},
	})
}

type inorderSuite struct {
	Guarantees
	newQ newQueue
}

func (s inorderSuite) atomicQ(t *testing.T) inorder.Queue { return s.newQ(t, inorder.Options{}) }

// anyQ is a queue for the properties both modes share: atomic when the
// implementation has that mode, per-object over an empty store otherwise.
func (s inorderSuite) anyQ(t *testing.T) inorder.Queue {
	if s.Atomic {
		return s.atomicQ(t)
	}
	return s.newQ(t, inorder.Options{KnownObjects: knownStore()})
}

func (s inorderSuite) arrivalOrder(t *testing.T) {
	q := s.anyQ(t)
	a1, a2, b1 := obj("a", "1"), obj("a", "2"), obj("b", "1")
	must(t, q.Add(a1))
	must(t, q.Update(a2))
	must(t, q.Add(b1))
	must(t, q.Delete(a2))
	must(t, q.Delete(cache.DeletedFinalStateUnknown{Key: "ns/b", Obj: b1}))
	for _, want := range []string{"Added ns/a@1", "Updated ns/a@2", "Added ns/b@1", "Deleted ns/a@2", "Deleted tomb(ns/b, ns/b@1)"} {
		wantEvents(t, pop(t, q).events, want)
	}
	wantEvents(t, drain(t, q))
}

func (s inorderSuite) atomicEvents(t *testing.T) {
	q := s.atomicQ(t)
	must(t, q.Add(obj("x", "1")))
	must(t, q.Replace([]any{obj("a", "5"), obj("b", "5")}, "7"))
	must(t, q.Bookmark("9"))
	must(t, q.Resync())
	must(t, q.Update(obj("a", "10")))
	wantEvents(t, drain(t, q), "Added ns/x@1", "ReplacedAll 7 [ns/a@5 ns/b@5]", "Bookmark 9", "SyncAll ", "Updated ns/a@10")
}

func (s inorderSuite) noBookmarks(t *testing.T) {
	q := s.newQ(t, inorder.Options{NoBookmarks: true})
	must(t, q.Bookmark("9"))
	must(t, q.Add(obj("a", "1")))
	wantEvents(t, drain(t, q), "Added ns/a@1")
}

func (s inorderSuite) syncedAfterReplace(t *testing.T) {
	q := s.atomicQ(t)
	if q.HasSynced() {
		t.Fatal("synced before anything happened")
	}
	must(t, q.Bookmark("1")) // a bookmark is no write: still not populated
	must(t, q.Replace([]any{obj("a", "1")}, "2"))
	must(t, q.Add(obj("b", "1")))
	for i, want := range []struct {
		ev      string
		initial bool
	}{{"Bookmark 1", true}, {"ReplacedAll 2 [ns/a@1]", true}, {"Added ns/b@1", false}} {
		_, err := q.Pop(func(item any, initial bool) error {
			if q.HasSynced() && want.initial {
				t.Errorf("pop %d: synced while processing an initial event", i)
			}
			if initial != want.initial {
				t.Errorf("pop %d: isInInitialList = %v, want %v", i, initial, want.initial)
			}
			wantEvents(t, describeAll(item.(cache.Deltas)), want.ev)
			return nil
		})
		must(t, err)
	}
	if !q.HasSynced() {
		t.Fatal("not synced after the first Replace was processed")
	}
	select {
	case <-q.HasSyncedChecker().Done():
	default:
		t.Fatal("HasSyncedChecker().Done() not closed once synced")
	}
	must(t, q.Replace(nil, "3"))
	if !q.HasSynced() {
		t.Fatal("a second Replace unsynced the queue")
	}
}

func (s inorderSuite) syncedAtWrite(t *testing.T) {
	for _, write := range []func(inorder.Queue) error{
		func(q inorder.Queue) error { return q.Add(obj("a", "1")) },
		func(q inorder.Queue) error { return q.Update(obj("a", "1")) },
		func(q inorder.Queue) error { return q.Delete(obj("a", "1")) },
	} {
		q := s.atomicQ(t)
		must(t, write(q))
		if !q.HasSynced() {
			t.Fatal("a write before any Replace leaves nothing to sync: synced at once, as client-go")
		}
		must(t, q.Replace([]any{obj("b", "1")}, "1"))
		p := pop(t, q)
		if p.initial {
			t.Fatalf("%v: initial after the queue synced", p)
		}
		drain(t, q)
	}
}

func (s inorderSuite) popBatchRuns(t *testing.T) {
	q := s.atomicQ(t)
	must(t, q.Add(obj("a", "1")))
	must(t, q.Add(obj("b", "1")))
	must(t, q.Delete(cache.DeletedFinalStateUnknown{Key: "ns/c", Obj: obj("c", "1")}))
	must(t, q.Update(obj("a", "2"))) // a again: ends the first batch
	must(t, q.Add(obj("c", "2")))    // c's tombstone was in the previous batch
	must(t, q.Bookmark("5"))         // not batchable: ends a batch, travels alone
	must(t, q.Add(obj("d", "1")))
	must(t, q.Replace(nil, "6"))
	must(t, q.Add(obj("e", "1")))
	want := []string{
		"batch[Added ns/a@1 Added ns/b@1 Deleted tomb(ns/c, ns/c@1)] initial=false",
		"batch[Updated ns/a@2 Added ns/c@2] initial=false",
		"single[Bookmark 5] initial=false",
		"single[Added ns/d@1] initial=false",
		"single[ReplacedAll 6 []] initial=false",
		"single[Added ns/e@1] initial=false",
	}
	for _, w := range want {
		p, err := popBatch(q)
		must(t, err)
		if p.String() != w {
			t.Fatalf("PopBatch handed %v, want %s", p, w)
		}
	}
	wantEvents(t, drain(t, q))
}

func (s inorderSuite) popBatchSize(t *testing.T) {
	q := s.anyQ(t)
	const n = inorder.DefaultBatchSize + 10
	for i := range n {
		must(t, q.Add(obj("o"+strconv.Itoa(i), "1")))
	}
	p, err := popBatch(q)
	must(t, err)
	if len(p.events) != inorder.DefaultBatchSize {
		t.Fatalf("first batch had %d events, want the batch size %d", len(p.events), inorder.DefaultBatchSize)
	}
	p, err = popBatch(q)
	must(t, err)
	if len(p.events) != 10 || p.events[0] != "Added ns/o"+strconv.Itoa(inorder.DefaultBatchSize)+"@1" {
		t.Fatalf("second batch %v, want the 10 remaining events", p)
	}
}

// unlockedProcessing: in the informers' configuration a write made while
// the consumer processes completes without waiting for it (here the
// consumer itself writes, which would deadlock a queue that held its lock).
func (s inorderSuite) unlockedProcessing(t *testing.T) {
	q := s.atomicQ(t)
	must(t, q.Add(obj("a", "1")))
	_, err := q.Pop(func(any, bool) error { return q.Add(obj("b", "1")) })
	must(t, err)
	err = q.PopBatch(func([]cache.Delta, bool) error { return errors.New("one event: single expected") },
		func(any, bool) error { return q.Add(obj("c", "1")) })
	must(t, err)
	wantEvents(t, drain(t, q), "Added ns/c@1")
}

// lockedProcessing: LockWhileProcessing builds a working queue (a write from
// another goroutine during processing waits; that cannot be observed
// without timing, so only the contract's outputs are checked).
func (s inorderSuite) lockedProcessing(t *testing.T) {
	q := s.newQ(t, inorder.Options{LockWhileProcessing: true})
	must(t, q.Add(obj("a", "1")))
	must(t, q.Replace([]any{obj("b", "1")}, "2"))
	p, err := popBatch(q)
	must(t, err)
	wantEvents(t, p.events, "Added ns/a@1")
	wantEvents(t, drain(t, q), "ReplacedAll 2 [ns/b@1]")
}

func (s inorderSuite) closeWakes(t *testing.T) {
	for _, batch := range []bool{false, true} {
		q := s.anyQ(t)
		errs := make(chan error, 1)
		go func() {
			if batch {
				_, err := popBatch(q)
				errs <- err
				return
			}
			_, err := q.Pop(func(any, bool) error { return nil })
			errs <- err
		}()
		q.Close()
		if err := <-errs; !errors.Is(err, cache.ErrFIFOClosed) {
			t.Fatalf("batch=%v: blocked pop returned %v after Close, want ErrFIFOClosed", batch, err)
		}
	}
}

func (s inorderSuite) closeDrains(t *testing.T) {
	q := s.anyQ(t)
	must(t, q.Add(obj("a", "1")))
	q.Close()
	must(t, q.Add(obj("b", "1"))) // client-go accepts writes after Close
	p, err := popBatch(q)
	must(t, err)
	wantEvents(t, p.events, "Added ns/a@1", "Added ns/b@1")
	if _, err := popBatch(q); !errors.Is(err, cache.ErrFIFOClosed) {
		t.Fatalf("PopBatch on a closed, empty queue: %v, want ErrFIFOClosed", err)
	}
}

func (s inorderSuite) badInput(t *testing.T) {
	q := s.anyQ(t)
	must(t, q.Add(obj("a", "1")))
	for _, bad := range []any{nil, "no metadata", 42} {
		for name, write := range map[string]func(any) error{"Add": q.Add, "Update": q.Update, "Delete": q.Delete} {
			var keyErr cache.KeyError
			if err := write(bad); !errors.As(err, &keyErr) {
				t.Errorf("%s(%#v) = %v, want a cache.KeyError", name, bad, err)
			}
		}
	}
	must(t, q.Add(obj("b", "1")))
	wantEvents(t, drain(t, q), "Added ns/a@1", "Added ns/b@1")
}

func (s inorderSuite) transformer(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	tf := func(o any) (any, error) {
		m := o.(interface{ GetName() string })
		mu.Lock()
		calls[m.GetName()]++
		mu.Unlock()
		if m.GetName() == "fail" {
			return nil, errors.New("transform failed")
		}
		c := *(o.(*metav1.PartialObjectMetadata))
		c.ResourceVersion += "t"
		return &c, nil
	}
	q := s.newQ(t, inorder.Options{Transformer: tf})
	if q.Transformer() == nil {
		t.Fatal("Transformer() = nil, want the configured transform (the Reflector asks for it)")
	}
	must(t, q.Add(obj("a", "1")))
	must(t, q.Delete(cache.DeletedFinalStateUnknown{Key: "ns/b", Obj: obj("b", "1")})) // tombstones are not transformed
	list := []any{obj("c", "1")}
	must(t, q.Replace(list, "2"))
	if err := q.Add(obj("fail", "1")); err == nil {
		t.Fatal("a failing transform was not reported")
	}
	if err := q.Replace([]any{obj("d", "1"), obj("fail", "1")}, "3"); err == nil {
		t.Fatal("a failing transform in Replace was not reported")
	}
	wantEvents(t, drain(t, q), "Added ns/a@1t", "Deleted tomb(ns/b, ns/b@1)", "ReplacedAll 2 [ns/c@1t]")
	if describeObj(list[0]) != "ns/c@1" {
		t.Errorf("Replace rewrote the caller's list: %s", describeObj(list[0]))
	}
	if calls["a"] != 1 || calls["c"] != 1 || calls["b"] != 0 {
		t.Errorf("transform calls %v: want once per entering object, none for tombstones", calls)
	}
}

// hammer: producers write concurrently while one consumer pops in batches.
// Exact accounting: every event comes out once, and each producer's events
// in the order it wrote them.
func (s inorderSuite) hammer(t *testing.T) {
	const producers, each = 8, 500
	q := s.anyQ(t)
	got := make([][]int, producers)
	done := make(chan error, 1)
	record := func(ds []cache.Delta) {
		for _, d := range ds {
			m := d.Object.(interface {
				GetName() string
				GetResourceVersion() string
			})
			p, _ := strconv.Atoi(m.GetName()[1:])
			v, _ := strconv.Atoi(m.GetResourceVersion())
			got[p] = append(got[p], v)
		}
	}
	go func() {
		for {
			err := q.PopBatch(func(ds []cache.Delta, _ bool) error { record(ds); return nil },
				func(item any, _ bool) error { record(item.(cache.Deltas)); return nil })
			if err != nil {
				if errors.Is(err, cache.ErrFIFOClosed) {
					err = nil
				}
				done <- err
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for v := range each {
				o := obj("p"+strconv.Itoa(p), strconv.Itoa(v))
				var err error
				switch v % 3 {
				case 0:
					err = q.Add(o)
				case 1:
					err = q.Update(o)
				default:
					err = q.Delete(o)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	q.Close()
	must(t, <-done)
	for p, vs := range got {
		want := make([]int, each)
		for i := range want {
			want[i] = i
		}
		if !slices.Equal(vs, want) {
			t.Fatalf("producer %d: got %d events (%v...), want versions 0..%d once each in order", p, len(vs), vs[:min(len(vs), 10)], each-1)
		}
	}
}

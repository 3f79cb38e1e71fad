package inordertest

import (
	"errors"
	"slices"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/inorder"
)

// Per-object mode: client-go's non-atomic RealFIFO, Replace and Resync
// reconciled against KnownObjects.

func (s inorderSuite) perObjectQ(t *testing.T, known cache.Store) inorder.Queue {
	return s.newQ(t, inorder.Options{KnownObjects: known})
}

func (s inorderSuite) perObjectReplace(t *testing.T) {
	q := s.perObjectQ(t, knownStore(obj("a", "1"), obj("b", "1"), obj("c", "1")))
	must(t, q.Update(obj("d", "1")))
	must(t, q.Delete(obj("e", "1")))
	must(t, q.Add(obj("f", "1")))
	must(t, q.Bookmark("3")) // no bookmarks in per-object mode
	must(t, q.Replace([]any{obj("a", "2"), obj("f", "2")}, "5"))
	got := drain(t, q)
	// The known keys' tombstones follow KnownObjects' ListKeys order,
	// which a store leaves unspecified.
	if len(got) == 8 {
		slices.Sort(got[4:6])
	}
	wantEvents(t, got,
		"Updated ns/d@1", "Deleted ns/e@1", "Added ns/f@1",
		"Deleted tomb(ns/d, ns/d@1)",                               // queued, not listed; e's last event already deletes it
		"Deleted tomb(ns/b, ns/b@1)", "Deleted tomb(ns/c, ns/c@1)", // known, not listed
		"Replaced ns/a@2", "Replaced ns/f@2")
}

func (s inorderSuite) perObjectBadReplace(t *testing.T) {
	q := s.perObjectQ(t, knownStore(obj("a", "1")))
	must(t, q.Add(obj("x", "1")))
	var keyErr cache.KeyError
	if err := q.Replace([]any{obj("b", "1"), "no metadata"}, "2"); !errors.As(err, &keyErr) {
		t.Fatalf("Replace with an unkeyable object = %v, want a cache.KeyError", err)
	}
	wantEvents(t, drain(t, q), "Added ns/x@1")
}

func (s inorderSuite) perObjectResync(t *testing.T) {
	q := s.perObjectQ(t, knownStore(obj("a", "1"), obj("b", "1")))
	must(t, q.Update(obj("a", "2")))
	must(t, q.Resync())
	wantEvents(t, drain(t, q), "Updated ns/a@2", "Sync ns/b@1")
}

func (s inorderSuite) perObjectSynced(t *testing.T) {
	q := s.perObjectQ(t, knownStore())
	must(t, q.Replace([]any{obj("a", "1"), obj("b", "1")}, "1"))
	for i := range 2 {
		if q.HasSynced() {
			t.Fatalf("synced with %d of the relist's 2 events processed", i)
		}
		if p := pop(t, q); !p.initial {
			t.Fatalf("%v: relist event not marked initial", p)
		}
	}
	if !q.HasSynced() {
		t.Fatal("not synced once the relist's events were processed")
	}
}

func (s inorderSuite) perObjectBatchBoundary(t *testing.T) {
	q := s.perObjectQ(t, knownStore(obj("x", "1")))
	must(t, q.Replace([]any{obj("a", "1"), obj("b", "1")}, "1"))
	must(t, q.Add(obj("c", "1")))
	for _, want := range []string{
		"batch[Deleted tomb(ns/x, ns/x@1) Replaced ns/a@1 Replaced ns/b@1] initial=true",
		"single[Added ns/c@1] initial=false",
	} {
		p, err := popBatch(q)
		must(t, err)
		if p.String() != want {
			t.Fatalf("PopBatch handed %v, want %s", p, want)
		}
	}
}

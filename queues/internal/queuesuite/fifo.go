package queuesuite

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/queuelab/queuelab/guarantee"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/queues"
)

// NewFIFO constructs a fresh, empty FIFO keyed by keyFunc for one property.
type NewFIFO func(t *testing.T, keyFunc cache.KeyFunc) cache.Queue

// FIFOProperties is the FIFO suite's table (see fifotest): properties of
// FIFOs from newFIFO keyed by cache.MetaNamespaceKeyFunc unless a property
// says otherwise, skipped as c declares.
func FIFOProperties(newFIFO NewFIFO, c Config) []suite.Property {
	var props []suite.Property
	mk := func(t *testing.T) cache.Queue { return newFIFO(t, cache.MetaNamespaceKeyFunc) }

	props = append(props, suite.Property{Name: "coalesces-to-newest", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		must(t, q.Update(obj("a", "2")))
		must(t, q.Add(obj("a", "3")))
		p := popOnce(q, nil)
		wantObj(t, p.item, "a", "3")
		if p.returned != p.item {
			t.Errorf("Pop returned %v, process got %v", p.returned, p.item)
		}
		wantEmpty(t, q)
	}})

	props = append(props, suite.Property{Name: "delete-before-pop-skips", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		must(t, q.Add(obj("b", "1")))
		must(t, q.Delete(obj("a", "1")))
		must(t, q.Delete(obj("never-added", "1")))
		wantKeys(t, fifoKeys(t, drain(t, q)), key("b"))
	}})

	props = append(props, suite.Property{Name: "delete-then-add-pops-once", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		must(t, q.Delete(obj("a", "1")))
		must(t, q.Add(obj("a", "2")))
		wantOnly(t, drain(t, q), "a", "2")
	}})

	props = append(props, suite.Property{Name: "replace-sets-exact-content", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("x", "1")))
		must(t, q.Replace([]any{obj("a", "1"), obj("b", "1"), obj("a", "2")}, "7"))
		got := drain(t, q)
		wantKeys(t, fifoKeys(t, got), key("a"), key("b"))
		for _, p := range got {
			if k, _ := cache.MetaNamespaceKeyFunc(p.item); k == key("a") {
				wantObj(t, p.item, "a", "2") // the list's last word on a key wins
			}
		}
	}})

	props = append(props, suite.Property{Name: "replace-key-error-changes-nothing", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("x", "1")))
		err := q.Replace([]any{obj("a", "1"), badObject{1}}, "7")
		if !isKeyError(err) {
			t.Fatalf("Replace with a keyless object: err = %v, want a cache.KeyError", err)
		}
		wantKeys(t, fifoKeys(t, drain(t, q)), key("x"))
	}})

	props = append(props, suite.Property{Name: "resync-is-a-no-op", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		must(t, q.Add(obj("b", "1")))
		must(t, q.Resync())
		wantKeys(t, fifoKeys(t, drain(t, q)), key("a"), key("b"))
	}})

	props = append(props, c.queueProperties(mk)...)

	props = append(props, suite.Property{Name: "custom-key-function", Run: func(t *testing.T) {
		q := newFIFO(t, byName)
		must(t, q.Add(obj("a", "1")))
		must(t, q.Add(testobj.Meta("other", "a", "2"))) // same name: same key
		wantOnly(t, drain(t, q), "a", "2")
	}})

	props = append(props, suite.Property{Name: "key-error-does-not-sync", Run: func(t *testing.T) {
		q := mk(t) // (client-go's DeltaFIFO, unlike its FIFO, marks itself populated first)
		if err := q.Add(badObject{1}); !isKeyError(err) {
			t.Fatalf("Add of a keyless object: err = %v, want a cache.KeyError", err)
		}
		checkSynced(t, q, false, "after a failed Add")
	}})

	props = append(props, suite.Property{Name: "process-error-is-returned", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		boom := errors.New("boom")
		p := popOnce(q, boom)
		if !errors.Is(p.err, boom) {
			t.Errorf("Pop err = %v, want the process error", p.err)
		}
		wantObj(t, p.returned, "a", "1")
		wantEmpty(t, q) // not requeued
	}})

	props = append(props, suite.Property{Name: "has-synced-after-initial-list-popped", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Replace([]any{obj("a", "1"), obj("b", "1"), obj("c", "1")}, "1"))
		must(t, q.Add(obj("c", "3"))) // a write after the first Replace re-arms nothing
		for i := range 3 {
			checkSynced(t, q, false, "before initial pop")
			if p := popOnce(q, nil); !p.initial {
				t.Errorf("initial pop %d: isInInitialList = false", i)
			}
		}
		checkSynced(t, q, true, "after the initial list")
		must(t, q.Add(obj("d", "1")))
		if p := popOnce(q, nil); p.initial {
			t.Error("pop after sync: isInInitialList = true")
		}
		checkSynced(t, q, true, "later")
	}})

	props = append(props, suite.Property{Name: "has-synced-counts-deleted-items", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Replace([]any{obj("a", "1"), obj("b", "1"), obj("c", "1")}, "1"))
		must(t, q.Delete(obj("b", "1")))
		got := []popped{popOnce(q, nil), popOnce(q, nil)}
		wantKeys(t, fifoKeys(t, got), key("a"), key("c"))
		// The deleted item counts as popped once a Pop has passed its
		// entry; draining passes it whatever order the FIFO chose.
		wantEmpty(t, q)
		checkSynced(t, q, true, "after the live initial items and the drain")
	}})

	props = append(props, suite.Property{Name: "ext-add-if-not-present", Skip: c.skipUnlessExt(), Run: func(t *testing.T) {
		q := mk(t)
		ap := addIfNotPresent(t, q)
		must(t, ap(obj("b", "1")))
		checkSynced(t, q, true, "after AddIfNotPresent")
		must(t, q.Add(obj("a", "1")))
		must(t, ap(obj("a", "2")))
		got := drain(t, q)
		wantKeys(t, fifoKeys(t, got), key("a"), key("b"))
		for _, p := range got {
			if k, _ := cache.MetaNamespaceKeyFunc(p.item); k == key("a") {
				wantObj(t, p.item, "a", "1") // present: AddIfNotPresent left it alone
			}
		}
	}})

	props = append(props, suite.Property{Name: "ext-err-requeue", Skip: c.skipUnlessExt(), Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		popRequeued(t, q)
		p := popOnce(q, requeue(nil))
		wantObj(t, p.item, "a", "1")
		if p.err != nil {
			t.Errorf("Pop with ErrRequeue{nil}: err = %v, want nil", p.err)
		}
		wantOnly(t, drain(t, q), "a", "1") // after two requeues
	}})

	props = append(props, suite.Property{Name: "hammer-producers-one-consumer", Run: func(t *testing.T) { fifoHammer(t, mk(t)) }})

	// A Reflector whose watch fails right after its first list relists, so
	// a FIFO can get a second Replace before its consumer popped anything.
	// HasSynced must still wait for the listed objects to be popped;
	// reporting synced at once would let WaitForCacheSync return with
	// nothing processed. (client-go counts the first list's size in pops
	// of whatever is queued next: here both objects.)
	props = append(props, suite.Property{Name: "relist-before-sync-still-waits-for-pops", Run: func(t *testing.T) {
		q := mk(t)
		list := []any{obj("a", "1"), obj("b", "1")}
		for range 2 {
			must(t, q.Replace(list, "1"))
		}
		checkSynced(t, q, false, "after two Replaces and no Pop")
		for i := range list {
			popOnce(q, nil)
			checkSynced(t, q, i == len(list)-1, fmt.Sprintf("after %d of %d listed objects were popped", i+1, len(list)))
		}
	}})

	return props
}

// checkOrder compares a drained key sequence with the order keys were
// queued in: exactly for OrderFIFO, as a set for relaxed orders.
func (c Config) checkOrder(t *testing.T, got, want []string) {
	t.Helper()
	if c.Order == guarantee.OrderFIFO {
		if !slices.Equal(got, want) {
			t.Errorf("pop order %v, want %v", got, want)
		}
		return
	}
	wantKeys(t, got, want...)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantObj asserts item is the test object name@rv (a FIFO item, or the
// newest object of a Deltas).
func wantObj(t *testing.T, item any, name, rv string) {
	t.Helper()
	item = newest(item)
	o, ok := item.(interface {
		GetName() string
		GetResourceVersion() string
	})
	if !ok || o.GetName() != name || o.GetResourceVersion() != rv {
		t.Errorf("got %#v, want %s@%s", item, name, rv)
	}
}

// wantEmpty drains q and asserts nothing was left.
func wantEmpty(t *testing.T, q cache.Queue) {
	t.Helper()
	if got := drain(t, q); len(got) > 0 {
		t.Errorf("queue should be empty, popped %d more items", len(got))
	}
}

// wantKeys asserts got holds exactly want, each once, in any order.
func wantKeys(t *testing.T, got []string, want ...string) {
	t.Helper()
	g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(g, w) {
		t.Errorf("popped keys %v, want %v (any order, each once)", g, w)
	}
}

// fifoKeys returns the keys of popped FIFO items (or Deltas), in pop order.
func fifoKeys(t *testing.T, ps []popped) []string {
	t.Helper()
	keys := make([]string, len(ps))
	for i, p := range ps {
		k, err := itemKey(p.item)
		if err != nil {
			t.Fatalf("popped an item without a key: %#v", p.item)
		}
		keys[i] = k
	}
	return keys
}

// newest is a popped item as the suites compare it: a FIFO item as is, a
// Deltas as its newest object.
func newest(item any) any {
	if ds, ok := item.(cache.Deltas); ok && len(ds) > 0 {
		return ds.Newest().Object
	}
	return item
}

// itemKey is the key of a popped item (or of a Deltas' newest object, or a
// tombstone's key).
func itemKey(item any) (string, error) {
	return cache.DeletionHandlingMetaNamespaceKeyFunc(newest(item))
}

// wantOnly asserts got is exactly one popped item, the test object name@rv.
func wantOnly(t *testing.T, got []popped, name, rv string) {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("popped %d items %v, want only %s@%s", len(got), fifoKeys(t, got), name, rv)
	}
	wantObj(t, got[0].item, name, rv)
}

// popRequeued pops the one queued item with a process function returning
// ErrRequeue{inner} and asserts Pop returned inner, unwrapped: the item is
// queued again for the next Pop.
func popRequeued(t *testing.T, q cache.Queue) popped {
	t.Helper()
	inner := errors.New("try again")
	p := popOnce(q, requeue(inner))
	if !errors.Is(p.err, inner) || isRequeue(p.err) {
		t.Errorf("Pop err = %v, want the inner error %v", p.err, inner)
	}
	return p
}

// addIfNotPresent returns q's AddIfNotPresent, failing t if it has none.
func addIfNotPresent(t *testing.T, q cache.Queue) func(any) error {
	t.Helper()
	return suite.As[interface{ AddIfNotPresent(any) error }](t, q).AddIfNotPresent
}

// requeue returns the [ext] queues.ErrRequeue wrapping inner.
func requeue(inner error) error { return queues.ErrRequeue{Err: inner} }

func isRequeue(err error) bool {
	var rq queues.ErrRequeue
	return errors.As(err, &rq)
}

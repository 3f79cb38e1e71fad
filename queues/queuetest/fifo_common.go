package queuetest

import (
	"errors"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/tools/cache"
)

// queueProperties registers the subtests the FIFO and DeltaFIFO suites
// share: properties of cache.Queue itself rather than of one accumulator.
func (c config) queueProperties(t *testing.T, mk func(t *testing.T) cache.Queue) {
	c.property(t, "order", func(t *testing.T) {
		q := mk(t)
		var want []string
		for _, n := range []string{"e", "b", "d", "a", "c", "g", "f", "h"} {
			must(t, q.Add(obj(n, "1")))
			want = append(want, key(n))
		}
		must(t, q.Update(obj("e", "2"))) // a queued key keeps its place
		c.checkOrder(t, fifoKeys(t, drain(t, q)), want)
	})

	c.property(t, "key-error-changes-nothing", func(t *testing.T) {
		q := mk(t)
		for name, op := range map[string]func(any) error{"Add": q.Add, "Update": q.Update, "Delete": q.Delete} {
			if err := op(badObject{1}); !isKeyError(err) {
				t.Errorf("%s of a keyless object: err = %v, want a cache.KeyError", name, err)
			}
		}
		wantEmpty(t, q)
	})

	c.property(t, "has-synced-after-first-write", func(t *testing.T) {
		for name, op := range map[string]func(q cache.Queue) error{
			"Add":           func(q cache.Queue) error { return q.Add(obj("a", "1")) },
			"Update":        func(q cache.Queue) error { return q.Update(obj("a", "1")) },
			"Delete-absent": func(q cache.Queue) error { return q.Delete(obj("a", "1")) },
			"Replace-empty": func(q cache.Queue) error { return q.Replace(nil, "1") },
		} {
			q := mk(t)
			checkSynced(t, q, false, "fresh")
			must(t, op(q))
			checkSynced(t, q, true, "after "+name)
		}
		q := mk(t)
		must(t, q.Resync()) // not a write
		checkSynced(t, q, false, "after Resync")
	})

	c.property(t, "pop-blocks-until-add", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := mk(t)
			var got popped
			done := make(chan struct{})
			go func() { got = popOnce(q, nil); close(done) }()
			synctest.Wait()
			if closedAlready(done) {
				t.Fatal("Pop returned from an empty queue")
			}
			must(t, q.Add(obj("a", "1")))
			<-done
			wantKeys(t, fifoKeys(t, []popped{got}), key("a"))
			q.Close()
		})
	})

	c.property(t, "close-wakes-blocked-pops", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := mk(t)
			errs := make(chan error, 3)
			for range 3 {
				go func() { errs <- popOnce(q, nil).err }()
			}
			synctest.Wait()
			q.Close()
			for range 3 {
				if err := <-errs; !errors.Is(err, cache.ErrFIFOClosed) {
					t.Errorf("blocked Pop after Close: err = %v, want cache.ErrFIFOClosed", err)
				}
			}
		})
	})

	c.property(t, "close-hands-out-what-is-queued", func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		must(t, q.Add(obj("b", "1")))
		ic, hasIsClosed := q.(interface{ IsClosed() bool })
		if hasIsClosed && ic.IsClosed() {
			t.Error("IsClosed before Close")
		}
		q.Close()
		if hasIsClosed && !ic.IsClosed() {
			t.Error("IsClosed false after Close")
		}
		wantKeys(t, fifoKeys(t, []popped{popOnce(q, nil), popOnce(q, nil)}), key("a"), key("b"))
		for range 2 {
			if err := popOnce(q, nil).err; !errors.Is(err, cache.ErrFIFOClosed) {
				t.Errorf("Pop of a closed, empty queue: err = %v, want cache.ErrFIFOClosed", err)
			}
		}
	})
}

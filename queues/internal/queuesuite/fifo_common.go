package queuesuite

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// queueProperties are the properties the FIFO and DeltaFIFO suites share:
// of cache.Queue itself rather than of one accumulator.
func (c Config) queueProperties(mk func(t *testing.T) cache.Queue) []suite.Property {
	var props []suite.Property
	props = append(props, suite.Property{Name: "order", Run: func(t *testing.T) {
		q := mk(t)
		var want []string
		for _, n := range []string{"e", "b", "d", "a", "c", "g", "f", "h"} {
			must(t, q.Add(obj(n, "1")))
			want = append(want, key(n))
		}
		must(t, q.Update(obj("e", "2"))) // a queued key keeps its place
		c.checkOrder(t, fifoKeys(t, drain(t, q)), want)
	}})

	props = append(props, suite.Property{Name: "key-error-changes-nothing", Run: func(t *testing.T) {
		q := mk(t)
		for name, op := range map[string]func(any) error{"Add": q.Add, "Update": q.Update, "Delete": q.Delete} {
			if err := op(badObject{1}); !isKeyError(err) {
				t.Errorf("%s of a keyless object: err = %v, want a cache.KeyError", name, err)
			}
		}
		wantEmpty(t, q)
	}})

	props = append(props, suite.Property{Name: "has-synced-after-first-write", Run: func(t *testing.T) {
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
	}})

	// An informer's WaitForCacheSync trusts "synced" to mean "the initial
	// list is in the store": client-go decides it before process runs, but
	// its HasSynced takes the lock Pop holds across process, so no caller
	// sees true earlier. A lock-free HasSynced must keep that promise too.
	props = append(props, suite.Property{Name: "has-synced-only-after-the-last-initial-process-returns", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Replace([]any{obj("a", "1")}, "1"))
		var returned, early atomic.Bool
		entered, release, popped, polled := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(popped)
			_, _ = q.Pop(func(any, bool) error {
				close(entered)
				<-release
				returned.Store(true)
				return nil
			})
		}()
		<-entered
		go func() {
			defer close(polled)
			for !q.HasSynced() { // client-go's blocks here until Pop unlocks
				runtime.Gosched()
			}
			early.Store(!returned.Load())
		}()
		for range 100 { // let the poller poll while process is blocked
			runtime.Gosched()
		}
		close(release)
		<-popped
		<-polled
		if early.Load() {
			t.Error("HasSynced() returned true while the last initial object's process was still running")
		}
	}})

	props = append(props, suite.Property{Name: "pop-blocks-until-add", Run: func(t *testing.T) {
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
	}})

	props = append(props, suite.Property{Name: "close-wakes-blocked-pops", Run: func(t *testing.T) {
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
	}})

	props = append(props, suite.Property{Name: "close-hands-out-what-is-queued", Run: func(t *testing.T) {
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
	}})
	return props
}

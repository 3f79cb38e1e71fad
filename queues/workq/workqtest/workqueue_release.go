package workqtest

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"k8s.io/client-go/util/workqueue"
)

// gcTries bounds how many collections the release property waits for a
// released item's cleanup: one collection normally suffices, the rest
// absorb a cleanup goroutine that has not been scheduled yet.
const gcTries = 100

// wqDoneReleasesItem: once an item's Done returns and the item is neither
// queued nor processing, the queue keeps no reference to it, as client-go's
// does. A queue of pointers to large objects would otherwise pin them. The
// item is a string whose bytes are an allocation of their own, watched by
// a cleanup.
func wqDoneReleasesItem(t *testing.T, newQueue newStrings) {
	q := fresh(t, newQueue)
	var released atomic.Bool
	cycleWatched(q, &released)
	for range gcTries {
		if released.Load() {
			return
		}
		runtime.GC()
		runtime.Gosched()
	}
	t.Fatalf("the item was still reachable after Add, Get, Done and %d collections", gcTries)
}

// cycleWatched adds, gets and finishes a fresh item whose bytes set
// released when collected; it keeps no reference to the item when it
// returns.
//
//go:noinline
func cycleWatched(q workqueue.TypedInterface[string], released *atomic.Bool) {
	item := strings.Repeat("released-item/", 8) // 112 bytes: its own allocation
	runtime.AddCleanup(unsafe.StringData(item), func(r *atomic.Bool) { r.Store(true) }, released)
	q.Add(item)
	got, _ := q.Get()
	q.Done(got)
}

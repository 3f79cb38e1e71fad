package priorityq_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/queuelab/queuelab/queues/priorityq"
)

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestLockFreeFootprint: what twenty LockFree queues on one informer cost
// (kube-controller-manager's shape, the controller-many load scenario):
// little when idle, a bounded amount per queued item, and little again
// once an initial list of 2,000 keys has gone through each of them: a
// level's ring is made on first use, and the segments a burst linked to it
// are dropped as they drain, so the burst does not stay pinned. Measured
// process-wide after a collection, with bounds about twice what the queue
// holds today (about 7 KB idle, 165 B per item, 15 KB drained); a heap
// profile of controller-many, whose peak heap is higher with this queue
// than with client-go's, showed it held there by 40,000 queued items, not
// by the queues' fixed cost.
func TestLockFreeFootprint(t *testing.T) {
	const queues, items = 20, 2000
	keys := make([]string, items)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns-%02d/pod-%05d", i%20, i)
	}
	qs := make([]*priorityq.LockFree[string], queues)
	before := liveHeap()
	for i := range qs {
		q, err := priorityq.NewLockFree(priorityq.Options[string]{})
		if err != nil {
			t.Fatal(err)
		}
		qs[i] = q
	}
	empty := liveHeap()
	for _, q := range qs {
		for _, k := range keys {
			q.Add(k)
		}
	}
	full := liveHeap()
	for _, q := range qs {
		for range keys {
			k, _ := q.Get()
			q.Done(k)
		}
	}
	drained := liveHeap()
	perQueue := (empty - before) / queues
	perItem := (full - empty) / (queues * items)
	perDrained := (drained - before) / queues
	t.Logf("per idle queue %d B, per queued item %d B, per drained queue %d B", perQueue, perItem, perDrained)
	if perQueue > 16<<10 {
		t.Errorf("an idle queue holds %d B, want at most 16 KiB", perQueue)
	}
	if perItem > 320 {
		t.Errorf("a queued item costs %d B, want at most 320 B", perItem)
	}
	if perDrained > 32<<10 {
		t.Errorf("a queue drained of %d items holds %d B, want at most 32 KiB", items, perDrained)
	}
	for _, q := range qs {
		q.ShutDown()
	}
}

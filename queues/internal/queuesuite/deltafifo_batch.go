package queuesuite

import (
	"errors"
	"fmt"
	"maps"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// maxBatch is the batch bound PopBatch must respect (client-go's RealFIFO
// uses the same).
const maxBatch = 1000

// popBatchEqualsPops fills two queues identically — an initial Replace with
// tombstones, keys with one delta and keys with several, keys added after
// the list — and drains one with Pop, the other with PopBatch. Every key
// must come out with the same deltas and isInInitialList either way; every
// batch must hold distinct keys with one delta each, at most maxBatch of
// them; HasSynced must turn true exactly when the last initial key is
// popped.
func popBatchEqualsPops(t *testing.T, newQ NewDeltaFIFO) {
	fill := func() cache.Queue {
		var known []any
		for i := range 10 {
			known = append(known, obj(fmt.Sprint("k", i), "1"))
		}
		store := knownStore()
		for _, o := range known {
			must(t, store.Add(o))
		}
		q := newQ(t, cache.DeltaFIFOOptions{KnownObjects: store, EmitDeltaTypeReplaced: true})
		list := known[:8:8] // k8, k9: tombstones
		for i := range 2500 {
			list = append(list, obj(fmt.Sprint("n", i), "1"))
		}
		must(t, q.Replace(list, "1"))
		must(t, q.Add(obj("n3", "2")))    // an initial key with two deltas
		must(t, q.Update(obj("k3", "2"))) // another
		for i := range 1500 {
			must(t, q.Add(obj(fmt.Sprint("x", i), "1"))) // after the list
		}
		must(t, q.Update(obj("x7", "2")))
		return q
	}

	type outcome struct {
		deltas  string
		initial bool
	}
	pops := make(map[string]outcome)
	q := fill()
	initial := make(map[string]bool)
	for _, p := range drain(t, q) {
		k := fifoKeys(t, []popped{p})[0]
		pops[k] = outcome{describeOne(p.item), p.initial}
		if p.initial {
			initial[k] = true
		}
	}

	bq := suite.As[cache.QueueWithBatch](t, fill())
	batched := make(map[string]outcome)
	left := maps.Clone(initial)
	record := func(k string, o outcome) {
		if _, dup := batched[k]; dup {
			t.Errorf("%s popped twice", k)
		}
		batched[k] = o
		delete(left, k)
	}
	afterCall := func() {
		if got, want := bq.HasSynced(), len(left) == 0; got != want {
			t.Errorf("HasSynced = %v with %d initial keys left", got, len(left))
		}
	}
	bq.Close()
	for {
		err := bq.PopBatch(func(deltas []cache.Delta, isInitial bool) error {
			if len(deltas) > maxBatch {
				t.Errorf("batch of %d deltas, more than %d", len(deltas), maxBatch)
			}
			seen := make(map[string]bool, len(deltas))
			for _, d := range deltas {
				k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(d.Object)
				if seen[k] {
					t.Errorf("a batch holds two deltas of %s", k)
				}
				seen[k] = true
				record(k, outcome{describeOne(cache.Deltas{d}), isInitial})
			}
			return nil
		}, func(item any, isInitial bool) error {
			record(fifoKeys(t, []popped{{item: item}})[0], outcome{describeOne(item), isInitial})
			return nil
		})
		if errors.Is(err, cache.ErrFIFOClosed) {
			break
		}
		must(t, err)
		afterCall()
	}
	if !maps.Equal(batched, pops) {
		for k, want := range pops {
			if got := batched[k]; got != want {
				t.Errorf("%s: PopBatch gave %+v, Pop gave %+v", k, got, want)
			}
		}
		t.Fatalf("PopBatch popped %d keys, Pop %d", len(batched), len(pops))
	}
}

// popBatchSyncedAfterProcess pins for PopBatch what
// "has-synced-only-after-the-last-initial-process-returns" pins for Pop: an
// informer's WaitForCacheSync (HasSynced, or the HasSyncedChecker's Done
// channel that cache.WaitFor selects on) must not report the queue synced
// while the last initial batch is still being written to the store.
// client-go's RealFIFO decrements its initial count in a deferred call after
// processBatch returns for exactly this reason. The Done channel is read
// inside the process function without blocking, so the check is
// deterministic.
func popBatchSyncedAfterProcess(t *testing.T, newQ NewDeltaFIFO) {
	for _, n := range []int{1, 3} { // 1: PopBatch hands it to processSingle
		q := newQ(t, cache.DeltaFIFOOptions{EmitDeltaTypeReplaced: true})
		bq := suite.As[cache.QueueWithBatch](t, q)
		list := make([]any, n)
		for i := range list {
			list[i] = obj(fmt.Sprint("o", i), "1")
		}
		must(t, q.Replace(list, "1"))
		done := q.HasSyncedChecker().Done()
		check := func(what string, got int) error {
			select {
			case <-done:
				t.Errorf("%s of %d of %d initial objects: HasSyncedChecker().Done() closed while it was still running", what, got, n)
			default:
			}
			return nil
		}
		for popped := 0; popped < n; {
			err := bq.PopBatch(func(ds []cache.Delta, _ bool) error {
				popped += len(ds)
				return check("processBatch", len(ds))
			}, func(any, bool) error {
				popped++
				return check("processSingle", 1)
			})
			if err != nil && !errors.Is(err, cache.ErrFIFOClosed) {
				t.Fatal(err)
			}
		}
		select {
		case <-done:
		default:
			t.Errorf("all %d initial objects processed, yet HasSyncedChecker().Done() is still open", n)
		}
		checkSynced(t, q, true, fmt.Sprintf("all %d initial objects processed", n))
		q.Close()
	}
}

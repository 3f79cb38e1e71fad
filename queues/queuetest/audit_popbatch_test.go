package queuetest_test

import (
	"errors"
	"fmt"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/registry"
)

// TestAuditPopBatchSyncedAfterProcess pins for PopBatch what
// "has-synced-only-after-the-last-initial-process-returns" pins for Pop: an
// informer's WaitForCacheSync (HasSynced, or the HasSyncedChecker's Done
// channel that cache.WaitFor selects on) must not report the queue synced
// while the last initial batch is still being written to the store.
// client-go's RealFIFO decrements its initial count in a deferred call after
// processBatch returns for exactly this reason. The Done channel is read
// inside the process function without blocking, so the check is
// deterministic; reading HasSynced there would deadlock client-go's queue,
// whose HasSynced takes the lock PopBatch holds.
func TestAuditPopBatchSyncedAfterProcess(t *testing.T) {
	auditImpls(t, deltafifo.Impls, func(t *testing.T, e deltaFIFOEntry) {
		for _, n := range []int{1, 3} { // 1: PopBatch hands it to processSingle
			q := e.New(cache.DeltaFIFOOptions{EmitDeltaTypeReplaced: true})
			bq, ok := q.(cache.QueueWithBatch)
			if !ok {
				t.Skip("not a cache.QueueWithBatch")
			}
			list := make([]any, n)
			for i := range list {
				list[i] = testobj.Meta("ns", fmt.Sprint("o", i), "1")
			}
			if err := q.Replace(list, "1"); err != nil {
				t.Fatal(err)
			}
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
			if !q.HasSynced() {
				t.Errorf("all %d initial objects processed, yet HasSynced() = false", n)
			}
			q.Close()
		}
	})
}

type deltaFIFOEntry = registry.Entry[deltafifo.New, deltafifo.Guarantees]

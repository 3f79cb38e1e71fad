package queuetest_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/queues/fifo"
	"github.com/queuelab/queuelab/queues/registry"
)

// TestAuditFIFORelistBeforeSync: a Reflector whose watch fails right after
// its first list relists, so a FIFO can get a second Replace before its
// consumer popped anything. HasSynced must still wait for the listed
// objects to be popped; reporting synced at once would let
// WaitForCacheSync return with nothing processed. (client-go counts the
// first list's size in pops of whatever is queued next: here both
// objects.)
func TestAuditFIFORelistBeforeSync(t *testing.T) {
	auditImpls(t, fifo.Impls, func(t *testing.T, e fifoEntry) {
		q := e.New(cache.MetaNamespaceKeyFunc)
		defer q.Close()
		list := []any{testobj.Meta("ns", "a", "1"), testobj.Meta("ns", "b", "1")}
		for range 2 {
			if err := q.Replace(list, "1"); err != nil {
				t.Fatal(err)
			}
		}
		if q.HasSynced() {
			t.Fatal("HasSynced() = true after two Replaces and no Pop")
		}
		for i := range list {
			if _, err := q.Pop(func(any, bool) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if got, want := q.HasSynced(), i == len(list)-1; got != want {
				t.Errorf("HasSynced() = %v after %d of %d listed objects were popped", got, i+1, len(list))
			}
		}
	})
}

type fifoEntry = registry.Entry[fifo.New, fifo.Guarantees]

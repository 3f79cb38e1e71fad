package controller

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/queuelab/queuelab/internal/testobj"
)

// recordingQueue is a priority queue that notes the priority each item was
// added with, so a test sees what controller-runtime's handler asked for.
type recordingQueue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	mu   sync.Mutex
	prio map[string]int
}

func (q *recordingQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	q.PriorityQueue.AddWithOpts(o, items...) // first, so a recorded item is in the queue
	q.mu.Lock()
	for _, it := range items {
		q.prio[it.Name] = ptr.Deref(o.Priority, 0)
	}
	q.mu.Unlock()
}

func (q *recordingQueue) Add(item reconcile.Request) { q.AddWithOpts(priorityqueue.AddOpts{}, item) }

func (q *recordingQueue) priorities() map[string]int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return maps.Clone(q.prio)
}

func testPod(name string, rv int) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: fmt.Sprint(rv)}}
}

// TestInitialListReachesQueueAtLowPriority runs every informer kind under
// controller-runtime's source.Informer and EnqueueRequestForObject over
// every lab priority queue: the initial list's pods must be added at
// handler.LowPriority and a live add after sync at the default priority,
// as with controller-runtime's own stack.
func TestInitialListReachesQueueAtLowPriority(t *testing.T) {
	const initial = 50
	for _, ie := range Informers() {
		for _, qn := range []string{PriorityQueueName, "pq-lockfree", "pq-mutex"} {
			t.Run("informer="+ie.Name+"/queue="+qn, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				names := make([]string, initial)
				for i := range names {
					names[i] = fmt.Sprint("old-", i)
				}
				lw, fw := testobj.PodsWatch(names...)
				inf, err := ie.New(lw, cache.Indexers{})
				if err != nil {
					t.Fatal(err)
				}
				qe, err := lookupQueue[reconcile.Request](qn)
				if err != nil {
					t.Fatal(err)
				}
				pq, ok := qe.New("test", newLimiter[reconcile.Request]()).(priorityqueue.PriorityQueue[reconcile.Request])
				if !ok {
					t.Fatalf("queue %s is not a controller-runtime PriorityQueue", qn)
				}
				q := &recordingQueue{PriorityQueue: pq, prio: map[string]int{}}
				defer q.ShutDown()
				var wg sync.WaitGroup
				defer wg.Wait()
				defer cancel()
				src := &source.Informer{Informer: inf, Handler: &handler.EnqueueRequestForObject{}}
				if err := src.Start(ctx, q); err != nil { // before Run, so the initial list reaches the queue
					t.Fatal(err)
				}
				wg.Go(func() { inf.RunWithContext(ctx) })
				if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
					t.Fatal("informer never synced")
				}
				fw.Add(testPod("live", 2))
				for deadline := time.Now().Add(10 * time.Second); len(q.priorities()) < initial+1; time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("%d of %d adds reached the queue", len(q.priorities()), initial+1)
					}
				}
				got := q.priorities()
				for i := range initial {
					if p := got[fmt.Sprint("old-", i)]; p != handler.LowPriority {
						t.Errorf("initial-list pod old-%d added at priority %d, want %d", i, p, handler.LowPriority)
					}
				}
				if p := got["live"]; p != 0 {
					t.Errorf("live pod added at priority %d, want 0", p)
				}
				// The live pod, at the higher priority, is handed out first.
				if item, prio, _ := q.GetWithPriority(); item.Name != "live" || prio != 0 {
					t.Errorf("first Get = %s at %d, want live at 0", item.Name, prio)
				}
			})
		}
	}
}

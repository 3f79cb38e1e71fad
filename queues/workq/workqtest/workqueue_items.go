package workqtest

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/queuelab/queuelab/guarantee"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
)

// Request has the shape of controller-runtime's reconcile.Request, the item
// type its controllers instantiate the queues with: a struct of two
// strings, compared by value.
type Request struct{ types.NamespacedName }

func req(ns, name string) Request {
	return Request{types.NamespacedName{Namespace: ns, Name: name}}
}

// requestItems: equal structs (built separately) are one item, an Add
// during processing re-queues after Done, Done of an idle item is ignored.
func requestItems(t *testing.T, newQueue func() workqueue.TypedInterface[Request], g Guarantees) {
	q := newQueue()
	defer q.ShutDown()
	q.Add(req("ns", "a"))
	q.Add(req("ns", "b"))
	q.Add(req("ns", "a")) // a different value, equal to the first
	if n := q.Len(); n != 2 {
		t.Fatalf("Len after adding a, b, a = %d, want 2", n)
	}
	first, _ := q.Get()
	if g.Order == guarantee.OrderFIFO && first != req("ns", "a") {
		t.Errorf("first Get = %v, want ns/a (FIFO)", first)
	}
	q.Add(req(first.Namespace, first.Name)) // while processing
	if n := q.Len(); n != 1 {
		t.Errorf("Len after re-adding the item being processed = %d, want 1", n)
	}
	q.Done(first)
	if n := q.Len(); n != 2 {
		t.Errorf("Len after Done of an item re-added while processing = %d, want 2", n)
	}
	second, _ := q.Get()
	third, _ := q.Get()
	if second == third || (second != first && third != first) {
		t.Errorf("after Done: got %v and %v, want the other item and %v once each", second, third, first)
	}
	q.Done(second)
	q.Done(third)
	q.Done(third) // idle now: ignored
	if n := q.Len(); n != 0 {
		t.Errorf("Len after everything is Done = %d, want 0", n)
	}
}

// requestItemsConcurrent: several workers and producers over a few struct
// items; no item is ever processed by two workers at once, and every Add is
// followed by a Get that starts after it (nothing is lost).
func requestItemsConcurrent(t *testing.T, newQueue func() workqueue.TypedInterface[Request]) {
	const items, producers, workers, adds = 8, 3, 4, 400
	q := newQueue()
	var busy [items]atomic.Int32
	var added, started [items]atomic.Int64 // sequence of last Add / last Get
	var seq atomic.Int64
	index := func(r Request) int { return int(r.Name[0] - 'a') }

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				r, shutdown := q.Get()
				if shutdown {
					return
				}
				i := index(r)
				if busy[i].Add(1) != 1 {
					t.Errorf("%v handed to two workers at once", r)
				}
				started[i].Store(seq.Add(1))
				busy[i].Add(-1)
				q.Done(r)
			}
		})
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			for n := range adds {
				i := (n*7 + p) % items
				added[i].Store(seq.Add(1))
				q.Add(req("ns", string(rune('a'+i))))
			}
		})
	}
	pwg.Wait()
	q.ShutDown()
	wg.Wait()
	for i := range items {
		if started[i].Load() < added[i].Load() {
			t.Errorf("item %c: last Add (seq %d) was never followed by a Get (last at %d)",
				'a'+i, added[i].Load(), started[i].Load())
		}
	}
}

// anyItems: workqueue.Interface is TypedInterface[any]; items of different
// dynamic types are different items, equal ones one.
func anyItems(t *testing.T, newQueue func() workqueue.TypedInterface[any]) {
	q := newQueue()
	defer q.ShutDown()
	for _, it := range []any{"a", 1, int64(1), req("ns", "a"), "a", 1, req("ns", "a")} {
		q.Add(it)
	}
	if n := q.Len(); n != 4 {
		t.Errorf(`Len after adding "a", 1, int64(1), ns/a and repeats = %d, want 4`, n)
	}
}

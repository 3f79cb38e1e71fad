package priorityqtest

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/queuelab/queuelab/queues/priorityq"
)

// GetYields checks that Get, with Options.GetYield set to GetYieldOn, is a
// scheduling point even when an item is ready: on one processor, a goroutine made runnable while a worker takes
// ready items one after another runs before the worker has taken them all.
// A Get that returns ready items without ever yielding lets CPU-bound
// workers keep their processors until the scheduler preempts them (10 ms or
// more each turn) and starves the informer that feeds the queue; a
// controller restarted into a busy cluster then sees live changes hundreds
// of milliseconds late (the controller-restart scenario).
//
// It is skipped unless g declares GetYield. controller-runtime's queue
// declares no such policy: its Get blocks on a channel that its hand-out
// goroutine feeds, and the scheduler runs the two as a hand-off that keeps
// the processor's turn, so on one processor a third goroutine waits for
// preemption there too. Under load its workers still block once per item,
// which is what kept its informer served.
//
// It sets GOMAXPROCS to 1 while it runs, so it must not run in parallel
// with other tests.
func GetYields(t *testing.T, newQueue NewQueue, g Guarantees) {
	t.Helper()
	if !g.GetYield {
		t.Skip("[ext] no GetYield policy: Get is not held to be a scheduling point")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	q := open(t, newQueue, priorityq.Options[string]{GetYield: priorityq.GetYieldOn})
	const n = 64
	for i := range n {
		q.Add(fmt.Sprint("item-", i))
	}
	for q.Len() < n { // controller-runtime's queue adds asynchronously
		runtime.Gosched()
	}
	runtime.Gosched() // a fresh turn, which preemption does not end during the loop
	var ran atomic.Bool
	go ran.Store(true)
	for i := range n {
		item, shutdown := q.Get()
		if shutdown {
			t.Fatalf("Get #%d reported shutdown", i+1)
		}
		q.Done(item)
		if ran.Load() {
			return
		}
	}
	t.Fatalf("a runnable goroutine did not run while Get handed out %d ready items on one processor: Get never yields", n)
}

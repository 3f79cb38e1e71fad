package priorityq_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/queues/priorityq"
)

type payload struct{ _ [64]byte }

// TestDoneReleasesItems: once an item is Done (and not queued again), no
// variant keeps it reachable — the house rule for work queues. The item is
// a pointer whose cleanup must run after a GC.
func TestDoneReleasesItems(t *testing.T) {
	for _, v := range withControllerRuntime[*payload]() {
		t.Run("impl="+v.name, func(t *testing.T) {
			q, err := v.new(priorityq.Options[*payload]{})
			if err != nil {
				t.Fatal(err)
			}
			defer q.ShutDown()
			released := make(chan struct{})
			func() {
				p := new(payload)
				runtime.AddCleanup(p, func(ch chan struct{}) { close(ch) }, released)
				q.Add(p)
				item, _ := q.Get()
				q.Add(item) // re-added while processed
				q.Done(item)
				item, _ = q.Get()
				q.Done(item)
			}()
			for range 50 {
				runtime.GC()
				select {
				case <-released:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
			t.Fatal("the queue still holds an item that is Done")
		})
	}
}

// TestConstructorsRefuseBadOptions: bad options are errors, never panics,
// and QueueFunc reports them before a controller ever calls it.
func TestConstructorsRefuseBadOptions(t *testing.T) {
	if _, err := priorityq.NewMutex(priorityq.Options[string]{Shards: 4}); err == nil {
		t.Error("NewMutex accepted Shards")
	}
	if _, err := priorityq.NewLockFree(priorityq.Options[string]{Shards: 4}); err == nil {
		t.Error("NewLockFree accepted Shards")
	}
	if _, err := priorityq.NewMutex(priorityq.Options[string]{GetYield: 7}); err == nil {
		t.Error("NewMutex accepted an unknown GetYield")
	}
	if _, err := priorityq.NewSharded(priorityq.Options[string]{Shards: -1}); err == nil {
		t.Error("NewSharded accepted Shards: -1")
	}
	if _, err := priorityq.QueueFunc(priorityq.NewSharded[string], priorityq.Options[string]{Shards: 1 << 20}); err == nil {
		t.Error("QueueFunc accepted Shards: 1<<20")
	}
	f, err := priorityq.QueueFunc(priorityq.NewSharded[string], priorityq.Options[string]{Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []workqueue.TypedRateLimitingInterface[string]{
		f("checked", nil),
		priorityq.NewQueue[string]("", nil), // no name, no limiter: defaults
	} {
		if _, ok := q.(priorityq.PriorityQueue[string]); !ok {
			t.Errorf("%T is not a PriorityQueue", q)
		}
		q.AddRateLimited("a") // the default limiter's 5 ms
		if item, _ := q.Get(); item != "a" {
			t.Errorf("Get = %q, want a", item)
		}
		q.ShutDown()
	}
}

// fixedDelay is a rate limiter that allocates nothing, so that an
// allocation count measures the queue alone.
type fixedDelay struct{}

func (fixedDelay) When(string) time.Duration { return time.Hour }
func (fixedDelay) Forget(string)             {}
func (fixedDelay) NumRequeues(string) int    { return 0 }

// TestDelayedAddsAllocateNothing: AddAfter and AddRateLimited cost no
// allocation on a lock-based queue, whatever its size. container/heap boxed
// the waiting record's index in an any, which allocates past 255: every
// delayed add of a queue with more than 256 records allocated once.
func TestDelayedAddsAllocateNothing(t *testing.T) {
	for _, v := range variants[string]() {
		if v.name == "lockfree" { // allocates per item by design, as controller-runtime's does
			continue
		}
		t.Run("impl="+v.name, func(t *testing.T) {
			o := priorityq.Options[string]{RateLimiter: fixedDelay{}}
			if v.name == "sharded" {
				o.Shards = 1 // one engine holds every record
			}
			q, err := v.new(o)
			if err != nil {
				t.Fatal(err)
			}
			defer q.ShutDown()
			for i := range 1000 {
				q.AddAfter(fmt.Sprint("parked-", i), time.Hour)
			}
			keys := make([]string, 64)
			for i := range keys {
				keys[i] = fmt.Sprint("key-", i)
			}
			i := 0
			cycle := func(add func(string)) func() {
				return func() {
					k := keys[i%len(keys)]
					i++
					add(k)
					q.Add(k) // readies it: out of the waiting heap
					item, _ := q.Get()
					q.Done(item)
				}
			}
			for name, add := range map[string]func(string){
				"AddAfter":       func(k string) { q.AddAfter(k, time.Hour) },
				"AddRateLimited": q.AddRateLimited,
			} {
				cycle(add)() // warm the free list and the index
				if n := testing.AllocsPerRun(200, cycle(add)); n != 0 {
					t.Errorf("%s + Add + Get + Done on a queue of 1000 waiting items: %v allocations per cycle, want 0", name, n)
				}
			}
		})
	}
}

package workq_test

import (
	"fmt"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/queues/workq"
	"github.com/queuelab/queuelab/queues/workq/workqtest"
)

// variant builds one of workq's queues for items T with the given Options.
type variant[T comparable] func(workq.Options) (workqueue.TypedInterface[T], error)

func mutex[T comparable](o workq.Options) (workqueue.TypedInterface[T], error) {
	return workq.NewMutex[T](o)
}

func sharded[T comparable](o workq.Options) (workqueue.TypedInterface[T], error) {
	return workq.NewSharded[T](o)
}

func ring[T comparable](o workq.Options) (workqueue.TypedInterface[T], error) {
	return workq.NewRing[T](o)
}

// must builds a queue or fails the test that asked for it; it runs inside
// the suites' constructors, which have no error to return.
func must[T comparable](t *testing.T, v variant[T], o workq.Options) workqueue.TypedInterface[T] {
	q, err := v(o)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// rateLimiting puts the rate-limiting layer over a fresh v queue.
func rateLimiting[T comparable](t *testing.T, v variant[T], o workq.Options) func(clock.WithTicker, workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
	return func(clk clock.WithTicker, l workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
		q, err := workq.NewRateLimiting(must(t, v, o), l, workq.LayerOptions{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
}

// TestDrainQueued holds every queue built with Options.DrainQueued, and the
// delaying and rate-limiting layers over it, to the whole conformance
// suite declaring DrainsQueued: its drain waits for queued items too
// (drain-waits-for-queued, drain-under-load) and it keeps every other
// property. The lab registry runs the suite on the default Options, which
// declare client-go's drain instead.
func TestDrainQueued(t *testing.T) {
	on := workq.Options{DrainQueued: true}
	for _, c := range []struct {
		name  string
		s     variant[string]
		r     variant[workqtest.Request]
		a     variant[any]
		order guarantee.Order
	}{
		{"mutex", mutex[string], mutex[workqtest.Request], mutex[any], guarantee.OrderFIFO},
		{"sharded", sharded[string], sharded[workqtest.Request], sharded[any], guarantee.OrderPerShard},
		{"ring", ring[string], ring[workqtest.Request], ring[any], guarantee.OrderFIFO},
	} {
		t.Run(c.name, func(t *testing.T) {
			// RunRateLimiting runs RunDelaying on the layered queue, and
			// that runs Run on it.
			workqtest.RunRateLimiting(t, workqtest.RateLimitingQueues{
				Strings:  rateLimiting(t, c.s, on),
				Requests: rateLimiting(t, c.r, on),
				Any:      rateLimiting(t, c.a, on),
			}, workqtest.Guarantees{Order: c.order, DrainsQueued: true})
		})
	}
}

// drainTrace runs a shutdown on a queue whose workers are between Gets,
// or not started, and says what a caller sees: whether ShutDownWithDrain
// returned with an item queued and none processing, and with one
// processing and one queued once that one is Done, and what Get hands out
// afterwards.
func drainTrace(newQueue func() workqueue.TypedInterface[string]) string {
	var out string
	drain := func(q workqueue.TypedInterface[string]) <-chan struct{} {
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			q.ShutDownWithDrain()
		}()
		return returned
	}
	returnedYet := func(ch <-chan struct{}) bool {
		synctest.Wait()
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	get := func(q workqueue.TypedInterface[string]) string {
		item, shutdown := q.Get()
		return fmt.Sprintf("Get=(%q,%v)", item, shutdown)
	}

	// Nothing handed out yet: no worker has started.
	q := newQueue()
	q.Add("a")
	returned := drain(q)
	out += fmt.Sprintf("queued only: drain returned %v, Len %d, %s", returnedYet(returned), q.Len(), get(q))
	q.Done("a")
	out += ", then " + get(q)
	q.ShutDown() // ends the wait of a queue that drains queued items
	<-returned

	// One item processing, one queued: the worker is Done and between Gets.
	q = newQueue()
	q.Add("a")
	first, _ := q.Get()
	q.Add("b")
	returned = drain(q)
	out += fmt.Sprintf("; processing %q: drain returned %v", first, returnedYet(returned))
	q.Done(first)
	out += fmt.Sprintf(", after its Done %v, Len %d, %s", returnedYet(returned), q.Len(), get(q))
	q.Done("b")
	out += ", then " + get(q)
	q.ShutDown()
	<-returned
	return out
}

// TestDrainDefaultIsClientGos shows that with default Options every queue's
// ShutDownWithDrain does what client-go's does, not what it documents
// (kubernetes/kubernetes#141079): it returns once nothing is processing,
// with items still queued, and Get then still hands those out. The same
// scenario runs on client-go's queue, and with DrainQueued to show the
// option is what changes it.
func TestDrainDefaultIsClientGos(t *testing.T) {
	var want string
	synctest.Test(t, func(t *testing.T) {
		want = drainTrace(func() workqueue.TypedInterface[string] { return workqueue.NewTyped[string]() })
	})
	t.Logf("client-go: %s", want)
	const drainsQueued = `queued only: drain returned false, Len 1, Get=("a",false), then Get=("",true); ` +
		`processing "a": drain returned false, after its Done false, Len 1, Get=("b",false), then Get=("",true)`
	for name, v := range map[string]variant[string]{"mutex": mutex[string], "sharded": sharded[string], "ring": ring[string]} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				if got := drainTrace(func() workqueue.TypedInterface[string] { return must(t, v, workq.Options{}) }); got != want {
					t.Errorf("default Options:\n got %s\nwant %s (client-go)", got, want)
				}
				if got := drainTrace(func() workqueue.TypedInterface[string] { return must(t, v, workq.Options{DrainQueued: true}) }); got != drainsQueued {
					t.Errorf("DrainQueued:\n got %s\nwant %s", got, drainsQueued)
				}
			})
		})
	}
}

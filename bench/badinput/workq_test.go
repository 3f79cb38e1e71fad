package badinput

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/workq"
	"github.com/queuelab/queuelab/queues/workq/workqtest"
)

// workqEntry is one of the lab's work queues.
type workqEntry = registry.Entry[func() workqueue.TypedInterface[string], workqtest.Guarantees]

// workqImpls is the lab's work-queue registry, client-go's first.
func workqImpls() []impl[workqEntry] {
	return entries(registry.WorkQueues[string](), registry.Baseline)
}

// onWorkQueue is a probe of a fresh work queue, shut down after it.
func onWorkQueue(probe func(q workqueue.TypedInterface[string]) string) func(*testing.T, workqEntry) string {
	return fresh(func(e workqEntry) workqueue.TypedInterface[string] { return e.New() }, workqueue.TypedInterface[string].ShutDown, probe)
}

// badWorkqOptions builds each variant with options out of range; upstream's
// queue has no such options.
var badWorkqOptions = map[string]func() error{
	"mutex": func() error {
		_, err := workq.NewMutex[string](workq.Options{Shards: 4})
		return err
	},
	"sharded": func() error {
		_, err := workq.NewSharded[string](workq.Options{Shards: -1})
		if err == nil {
			_, err = workq.NewSharded[string](workq.Options{Shards: 1 << 20})
		}
		return err
	},
	"ring": func() error {
		_, err := workq.NewRing[string](workq.Options{Capacity: -1})
		if err == nil {
			_, err = workq.NewRing[string](workq.Options{Capacity: math.MaxInt})
		}
		return err
	},
}

// optionsProbe reports how a variant's constructor treats out-of-range
// options: every one must refuse them with an error.
func optionsProbe(name string, table map[string]func() error, bad map[string]int) string {
	build, ok := table[name]
	if !ok {
		return "no such options"
	}
	if msg := panics(func() { _ = build() }); msg != "" {
		return "panics: " + msg
	}
	err := build()
	if err == nil {
		return "accepted"
	}
	return quotes(err, bad[name])
}

// quotes describes a constructor's error for the out-of-range value v: it
// must quote v, so that the message says what is wrong.
func quotes(err error, v int) string {
	if !strings.Contains(err.Error(), strconv.Itoa(v)) {
		return "constructor returns an error not quoting the bad value: " + err.Error()
	}
	return "constructor returns an error quoting the bad value"
}

// afterShutDown drives a queue holding one item in processing and one queued
// through every method after ShutDown, and describes what each did.
func afterShutDown(q workqueue.TypedInterface[string]) string {
	q.Add("busy")
	q.Get()
	q.Add("queued")
	q.ShutDown()
	q.Add("late")
	q.Add("busy") // re-adding an item in processing
	out := fmt.Sprintf("ShuttingDown %v; Add dropped (Len %d)", q.ShuttingDown(), q.Len())
	item, shut := q.Get()
	out += fmt.Sprintf("; Get hands out %q (shutdown %v)", item, shut)
	q.Done("busy")
	q.Done(item)
	_, shut = q.Get()
	out += fmt.Sprintf(", then reports shutdown %v", shut)
	if msg := panics(q.ShutDown); msg != "" {
		return out + "; second ShutDown panics: " + msg
	}
	q.ShutDownWithDrain()
	return out + "; ShutDown and ShutDownWithDrain again return"
}

var workqCases = []badCase[workqEntry]{
	{
		name:     "Done of an unknown item",
		upstream: "ignored (Len 0, the queue works on)",
		probe: onWorkQueue(func(q workqueue.TypedInterface[string]) string {
			q.Done("unknown")
			return worksOn(q, "a", fmt.Sprintf("ignored (Len %d, the queue works on)", q.Len()))
		}),
	},
	{
		name:     "Done of an item queued but not handed out",
		upstream: "queues it a second time (Len 2: two Gets hand it out, so two workers may process it at once)",
		variants: "ignored (Len 1: handed out once)",
		note:     "client-go's Done re-queues any dirty item, so a stray Done breaks its own rule that one item is never processed twice at once; the variants ignore a Done for an item not being processed",
		probe: onWorkQueue(func(q workqueue.TypedInterface[string]) string {
			q.Add("a")
			q.Done("a")
			if n := q.Len(); n != 1 {
				return fmt.Sprintf("queues it a second time (Len %d: two Gets hand it out, so two workers may process it at once)", n)
			}
			return "ignored (Len 1: handed out once)"
		}),
	},
	{
		name:     "every method after ShutDown",
		upstream: `ShuttingDown true; Add dropped (Len 1); Get hands out "queued" (shutdown false), then reports shutdown true; ShutDown and ShutDownWithDrain again return`,
		probe: func(t *testing.T, e workqEntry) string {
			return afterShutDown(e.New())
		},
	},
	{
		name:     "out-of-range options (Shards, Capacity, an option the variant does not take)",
		upstream: "no such options",
		variants: "constructor returns an error quoting the bad value",
		probe: func(t *testing.T, e workqEntry) string {
			return optionsProbe(e.Name, badWorkqOptions, map[string]int{"mutex": 4, "sharded": -1, "ring": -1})
		},
	},
}

func workqFamily() family {
	return describe("Work queues (workq; client-go workqueue.Typed)", workqCases, workqImpls())
}

func TestWorkQueueBadInput(t *testing.T) { runCases(t, workqCases, workqImpls()) }

// delayingQueue is a delaying queue on a fake clock.
type delayingQueue struct {
	workqueue.TypedRateLimitingInterface[string]
	clock *clocktesting.FakeClock
}

// newLayer builds a delaying queue: upstream's, or the workq layer over one
// of the registry's queues.
type newLayer func(limiter workqueue.TypedRateLimiter[string]) (delayingQueue, error)

// layerImpls is client-go's rate-limiting queue, then workq.NewRateLimiting
// (over workq.NewDelaying) over every work queue of the registry.
func layerImpls() []impl[newLayer] {
	out := []impl[newLayer]{{registry.Baseline, true, func(l workqueue.TypedRateLimiter[string]) (delayingQueue, error) {
		clk := clocktesting.NewFakeClock(time.Unix(0, 0))
		return delayingQueue{workqueue.NewTypedRateLimitingQueueWithConfig(l, workqueue.TypedRateLimitingQueueConfig[string]{
			Clock: clk,
		}), clk}, nil
	}}}
	for _, e := range registry.WorkQueues[string]() {
		out = append(out, impl[newLayer]{"layer/" + e.Name, false, func(l workqueue.TypedRateLimiter[string]) (delayingQueue, error) {
			clk := clocktesting.NewFakeClock(time.Unix(0, 0))
			inner := e.New()
			q, err := workq.NewRateLimiting(inner, l, workq.LayerOptions{Clock: clk})
			if err != nil {
				inner.ShutDown()
				return delayingQueue{}, err
			}
			return delayingQueue{q, clk}, nil
		}})
	}
	return out
}

func newDelaying(nl newLayer) delayingQueue {
	return registry.Must(nl(workqueue.DefaultTypedControllerRateLimiter[string]()))
}

// onDelaying is a probe of a fresh delaying queue, shut down after it
// (again when the probe shut it down: client-go allows a second ShutDown).
func onDelaying(probe func(q delayingQueue) string) func(*testing.T, newLayer) string {
	return fresh(newDelaying, delayingQueue.ShutDown, probe)
}

// waitLen waits until q holds n ready items; a delayed item reaches the
// queue from the layer's goroutine after the fake clock steps.
func waitLen(q delayingQueue, n int) bool {
	for range 2000 {
		if q.Len() == n {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

var delayingCases = []badCase[newLayer]{
	{
		name:     "negative or zero delay (AddAfter)",
		upstream: "a plain Add: ready at once",
		probe: onDelaying(func(q delayingQueue) string {
			q.AddAfter("neg", -time.Hour)
			q.AddAfter("zero", 0)
			if n := q.Len(); n != 2 {
				return fmt.Sprintf("Len %d after the adds", n)
			}
			return "a plain Add: ready at once"
		}),
	},
	{
		name:     "huge delay (AddAfter math.MaxInt64)",
		upstream: "waits (not ready an hour later; a later short delay overtakes it)",
		probe: onDelaying(func(q delayingQueue) string {
			q.AddAfter("huge", math.MaxInt64)
			q.AddAfter("soon", time.Second)
			// An hour is enough: a deadline that overflowed would lie in
			// the past. (Each fake-clock step walks client-go's 10 s
			// heartbeat ticker through the interval one tick at a time.)
			q.clock.Step(time.Hour)
			if !waitLen(q, 1) {
				return fmt.Sprintf("Len %d after the clock passed the short delay", q.Len())
			}
			if item, _ := q.Get(); item != "soon" {
				return "ready at once: Get hands out " + item + " first"
			}
			return "waits (not ready an hour later; a later short delay overtakes it)"
		}),
	},
	{
		name:     "AddAfter and AddRateLimited after ShutDown",
		upstream: "dropped (Len 0 after the delays pass, Get reports shutdown true)",
		probe: onDelaying(func(q delayingQueue) string {
			q.ShutDown()
			q.AddAfter("a", time.Second)
			q.AddAfter("b", -1)
			q.AddRateLimited("c")
			q.clock.Step(time.Hour)
			if n := q.Len(); n != 0 {
				return fmt.Sprintf("queued (Len %d)", n)
			}
			_, shut := q.Get()
			return fmt.Sprintf("dropped (Len 0 after the delays pass, Get reports shutdown %v)", shut)
		}),
	},
}

func delayingFamily() family {
	return describe("Delaying layer (workq.NewDelaying; client-go's delaying queue), on a fake clock", delayingCases, layerImpls())
}

func TestDelayingBadInput(t *testing.T) { runCases(t, delayingCases, layerImpls()) }

var rateLimitingCases = []badCase[newLayer]{
	{
		name:     "nil rate limiter",
		upstream: "accepted; AddRateLimited then panics: runtime error: invalid memory address or nil pointer dereference",
		variants: "constructor returns an error: workq: NewRateLimiting: nil rate limiter",
		note:     "where client-go fails at the first retry, the variants fail at construction",
		probe: func(t *testing.T, nl newLayer) string {
			q, err := nl(nil)
			if err != nil {
				return "constructor returns an error: " + err.Error()
			}
			defer q.ShutDown()
			if msg := panics(func() { q.AddRateLimited("a") }); msg != "" {
				return "accepted; AddRateLimited then panics: " + msg
			}
			return "accepted"
		},
	},
	{
		name:     "Forget and NumRequeues of an unknown item",
		upstream: "ignored (NumRequeues 0)",
		probe: onDelaying(func(q delayingQueue) string {
			q.Forget("unknown")
			return fmt.Sprintf("ignored (NumRequeues %d)", q.NumRequeues("unknown"))
		}),
	},
	{
		name:     "Forget after ShutDown",
		upstream: "resets the item's retries (NumRequeues 1, then 0)",
		probe: onDelaying(func(q delayingQueue) string {
			q.AddRateLimited("a")
			q.ShutDown()
			before := q.NumRequeues("a")
			q.Forget("a")
			return fmt.Sprintf("resets the item's retries (NumRequeues %d, then %d)", before, q.NumRequeues("a"))
		}),
	},
}

func rateLimitingFamily() family {
	return describe("Rate-limiting layer (workq.NewRateLimiting; client-go's rate-limiting queue)", rateLimitingCases, layerImpls())
}

func TestRateLimitingBadInput(t *testing.T) { runCases(t, rateLimitingCases, layerImpls()) }

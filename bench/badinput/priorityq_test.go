package badinput

import (
	"fmt"
	"math"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/priorityq"
	"github.com/queuelab/queuelab/queues/priorityq/priorityqtest"
)

// pqEntry is one of the lab's priority queues.
type pqEntry = registry.Entry[func(priorityq.Options[string]) (priorityq.PriorityQueue[string], error), priorityqtest.Guarantees]

// priorityqImpls is the lab's priority-queue registry, controller-runtime's
// first.
func priorityqImpls() []impl[pqEntry] {
	return entries(registry.PriorityQueues[string](), registry.PriorityBaseline)
}

func newPQ(e pqEntry) priorityq.PriorityQueue[string] {
	q, err := e.New(priorityq.Options[string]{})
	if err != nil {
		panic(err)
	}
	return q
}

// shutDownOnce shuts q down; probes that shut it down themselves skip it.
func shutDownOnce(q priorityq.PriorityQueue[string]) {
	if !q.ShuttingDown() {
		q.ShutDown()
	}
}

// onPQ is a probe of a fresh priority queue, shut down after it.
func onPQ(probe func(q priorityq.PriorityQueue[string]) string) func(*testing.T, pqEntry) string {
	return fresh(newPQ, shutDownOnce, probe)
}

var priorityqCases = []badCase[pqEntry]{
	{
		name:     "Done and Forget of an unknown item",
		upstream: "ignored (NumRequeues 0, the queue works on)",
		probe: onPQ(func(q priorityq.PriorityQueue[string]) string {
			q.Done("unknown")
			q.Forget("unknown")
			return worksOn(q, "a", fmt.Sprintf("ignored (NumRequeues %d, the queue works on)", q.NumRequeues("unknown")))
		}),
	},
	{
		name:     "every method after ShutDown",
		upstream: "ShuttingDown true; Add, AddWithOpts, AddAfter, AddRateLimited dropped (Len 1); Get and GetWithPriority report shutdown at once, even with items ready; Done and Forget return",
		note:     "client-go's workqueue drains instead (see the work-queue table)",
		probe: onPQ(func(q priorityq.PriorityQueue[string]) string {
			q.Add("busy")
			q.Get()
			q.Add("ready")
			q.Len() // controller-runtime's Len flushes its add buffer
			q.ShutDown()
			q.Add("late")
			q.AddWithOpts(priorityq.AddOpts{Priority: ptr.To(10)}, "late-priority")
			q.AddAfter("late-after", -1)
			q.AddRateLimited("late-rl")
			out := fmt.Sprintf("ShuttingDown %v; Add, AddWithOpts, AddAfter, AddRateLimited dropped (Len %d)", q.ShuttingDown(), q.Len())
			if item, _, shut := q.GetWithPriority(); !shut {
				q.Done(item)
				q.Done("busy")
				return out + fmt.Sprintf("; Get hands out %q until drained", item)
			}
			if _, shut := q.Get(); !shut {
				return out + "; Get hands out an item after GetWithPriority reported shutdown"
			}
			q.Done("busy")
			q.Forget("busy")
			return out + "; Get and GetWithPriority report shutdown at once, even with items ready; Done and Forget return"
		}),
	},
	{
		name:     "ShutDown twice",
		upstream: "panics: close of closed channel",
		variants: "the second call returns",
		note:     "controller-runtime closes its done channel again; a workqueue's ShutDown may be called twice (client-go's may), so the variants make it idempotent",
		probe: onPQ(func(q priorityq.PriorityQueue[string]) string {
			q.ShutDown()
			if msg := panics(q.ShutDown); msg != "" {
				return "panics: " + msg
			}
			if msg := panics(q.ShutDownWithDrain); msg != "" {
				return "ShutDownWithDrain panics: " + msg
			}
			return "the second call returns"
		}),
	},
	{
		name:     "negative or zero delay (AddAfter, AddOpts.After)",
		upstream: "ready at once (Len 2)",
		probe: onPQ(func(q priorityq.PriorityQueue[string]) string {
			q.AddAfter("neg", -time.Hour)
			q.AddWithOpts(priorityq.AddOpts{After: 0}, "zero")
			return fmt.Sprintf("ready at once (Len %d)", q.Len())
		}),
	},
	{
		name:     "huge delay (AddAfter math.MaxInt64)",
		upstream: "waits (Len 0; an item added later is handed out)",
		probe: onPQ(func(q priorityq.PriorityQueue[string]) string {
			q.AddAfter("huge", math.MaxInt64)
			return worksOn(q, "now", fmt.Sprintf("waits (Len %d; an item added later is handed out)", q.Len()))
		}),
	},
	{
		name:     "out-of-range options (Shards)",
		upstream: "the registry adapter returns an error naming the option (controller-runtime has no Shards)",
		variants: "constructor returns an error quoting the bad value",
		probe: func(t *testing.T, e pqEntry) string {
			shards := 4 // the non-sharded variants take none
			if e.Name == "sharded" {
				shards = -1
			}
			_, err := e.New(priorityq.Options[string]{Shards: shards})
			switch {
			case err == nil:
				return "accepted"
			case e.Name == registry.PriorityBaseline:
				return "the registry adapter returns an error naming the option (controller-runtime has no Shards)"
			}
			if e.Name == "sharded" {
				if _, err := e.New(priorityq.Options[string]{Shards: 1 << 20}); err == nil {
					return "accepted 1<<20 shards"
				}
			}
			return quotes(err, shards)
		},
	},
}

func priorityqFamily() family {
	return describe("Priority queues (priorityq; controller-runtime priorityqueue)", priorityqCases, priorityqImpls())
}

func TestPriorityQueueBadInput(t *testing.T) { runCases(t, priorityqCases, priorityqImpls()) }

package registry_test

import (
	"testing"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/lab/registry/registrytest"
	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/workq/workqtest"
)

// workqDiffDir holds the op sequences every work queue is replayed on: each
// differential failure found, kept by workqtest.Diff, goes here.
const workqDiffDir = "testdata/diff/workq"

// byItemType runs check as a subtest for every entry of strs, with the
// constructors the lists for struct and any items hold under the entry's
// name: one implementation instantiated for the three item types the
// suites check.
func byItemType[S, R, A any](t *testing.T, strs registry.List[S, workqtest.Guarantees], reqs registry.List[R, workqtest.Guarantees], anys registry.List[A, workqtest.Guarantees], check func(*testing.T, S, R, A, workqtest.Guarantees)) {
	for _, e := range strs {
		t.Run("impl="+e.Name, func(t *testing.T) {
			r, err := reqs.Lookup(e.Name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := anys.Lookup(e.Name)
			if err != nil {
				t.Fatal(err)
			}
			check(t, e.New, r.New, a.New, e.Guarantees)
		})
	}
}

// TestWorkQueues runs the workqueue suite over every work queue, client-go's
// included.
func TestWorkQueues(t *testing.T) {
	byItemType(t, registry.WorkQueues[string](), registry.WorkQueues[workqtest.Request](), registry.WorkQueues[any](),
		func(t *testing.T, s func() workqueue.TypedInterface[string], r func() workqueue.TypedInterface[workqtest.Request], a func() workqueue.TypedInterface[any], g workqtest.Guarantees) {
			workqtest.Run(t, workqtest.Queues{Strings: s, Requests: r, Any: a}, g)
		})
}

// TestDelayingQueues runs the delaying suite (and with it the workqueue
// suite) over client-go's delaying queue and the workq layer over every
// work queue.
func TestDelayingQueues(t *testing.T) {
	byItemType(t, registry.DelayingQueues[string](), registry.DelayingQueues[workqtest.Request](), registry.DelayingQueues[any](),
		func(t *testing.T, s func(clock.WithTicker) workqueue.TypedDelayingInterface[string], r func(clock.WithTicker) workqueue.TypedDelayingInterface[workqtest.Request], a func(clock.WithTicker) workqueue.TypedDelayingInterface[any], g workqtest.Guarantees) {
			workqtest.RunDelaying(t, workqtest.DelayingQueues{Strings: s, Requests: r, Any: a}, g)
		})
}

// TestRateLimitingQueues runs the rate-limiting suite (and with it the
// delaying and workqueue suites) over client-go's rate-limiting queue and
// the workq layer over every work queue.
func TestRateLimitingQueues(t *testing.T) {
	byItemType(t, registry.RateLimitingQueues[string](), registry.RateLimitingQueues[workqtest.Request](), registry.RateLimitingQueues[any](),
		func(t *testing.T, s func(clock.WithTicker, workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string], r func(clock.WithTicker, workqueue.TypedRateLimiter[workqtest.Request]) workqueue.TypedRateLimitingInterface[workqtest.Request], a func(clock.WithTicker, workqueue.TypedRateLimiter[any]) workqueue.TypedRateLimitingInterface[any], g workqtest.Guarantees) {
			workqtest.RunRateLimiting(t, workqtest.RateLimitingQueues{Strings: s, Requests: r, Any: a}, g)
		})
}

// TestWorkQueueGuarantees pins what each work queue declares: the suites
// skip by these declarations, so a wrong one silently skips the wrong
// properties. A layer declares its base's. With default Options no queue
// declares DrainsQueued: their drain is client-go's (workq.Options.DrainQueued
// opts in, and queues/workq's own tests hold that to the suite).
func TestWorkQueueGuarantees(t *testing.T) {
	fifo := workqtest.Guarantees{Order: guarantee.OrderFIFO}
	perShard := workqtest.Guarantees{Order: guarantee.OrderPerShard}
	registrytest.CheckGuarantees(t, registry.WorkQueues[string](), map[string]workqtest.Guarantees{
		registry.Baseline: fifo, "mutex": fifo, "sharded": perShard, "ring": fifo,
	})
	layered := map[string]workqtest.Guarantees{
		registry.Baseline: fifo, "layer-clientgo": fifo, "layer-mutex": fifo, "layer-sharded": perShard, "layer-ring": fifo,
	}
	registrytest.CheckGuarantees(t, registry.DelayingQueues[string](), layered)
	registrytest.CheckGuarantees(t, registry.RateLimitingQueues[string](), layered)
}

// TestWorkQueueDiffReplay replays every committed op sequence on every work
// queue.
func TestWorkQueueDiffReplay(t *testing.T) {
	names, ops := suite.OpFiles(t, workqDiffDir)
	if len(names) == 0 {
		t.Fatalf("no op files under %s: the replay path is not exercised", workqDiffDir)
	}
	for _, name := range names {
		for _, e := range registry.WorkQueues[string]() {
			t.Run(name+"/impl="+e.Name, func(t *testing.T) { workqtest.Diff(t, e.New, e.Guarantees, ops[name]) })
		}
	}
}

// FuzzWorkQueueDiff explores op sequences beyond the suite's seeds on every
// work queue; without -fuzz it runs the seeded ones below:
// go test -fuzz FuzzWorkQueueDiff ./registry
func FuzzWorkQueueDiff(f *testing.F) {
	for _, seed := range []uint64{42, 1000} {
		f.Add(workqtest.SeedOps(seed))
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, e := range registry.WorkQueues[string]() {
			t.Run("impl="+e.Name, func(t *testing.T) { workqtest.Diff(t, e.New, e.Guarantees, ops) })
		}
	})
}

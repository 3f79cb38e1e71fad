package registry_test

import (
	"testing"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/lab/registry/registrytest"
	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/workq/workqtest"
)

// workqDiffDir holds the op sequences every work queue is replayed on: each
// differential failure found, kept by workqtest.Diff, goes here.
const workqDiffDir = "testdata/diff/workq"

// sameImpl returns the constructor of the entry called name in l, the same
// implementation as a list for another item type holds under that name.
func sameImpl[N any](t *testing.T, l registry.List[N, workqtest.Guarantees], name string) N {
	t.Helper()
	e, err := l.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return e.New
}

// TestWorkQueues runs the workqueue suite over every work queue, client-go's
// included.
func TestWorkQueues(t *testing.T) {
	reqs, anys := registry.WorkQueues[workqtest.Request](), registry.WorkQueues[any]()
	for _, e := range registry.WorkQueues[string]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			workqtest.Run(t, workqtest.Queues{Strings: e.New, Requests: sameImpl(t, reqs, e.Name), Any: sameImpl(t, anys, e.Name)}, e.Guarantees)
		})
	}
}

// TestDelayingQueues runs the delaying suite (and with it the workqueue
// suite) over client-go's delaying queue and the workq layer over every
// work queue.
func TestDelayingQueues(t *testing.T) {
	reqs, anys := registry.DelayingQueues[workqtest.Request](), registry.DelayingQueues[any]()
	for _, e := range registry.DelayingQueues[string]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			workqtest.RunDelaying(t, workqtest.DelayingQueues{Strings: e.New, Requests: sameImpl(t, reqs, e.Name), Any: sameImpl(t, anys, e.Name)}, e.Guarantees)
		})
	}
}

// TestRateLimitingQueues runs the rate-limiting suite (and with it the
// delaying and workqueue suites) over client-go's rate-limiting queue and
// the workq layer over every work queue.
func TestRateLimitingQueues(t *testing.T) {
	reqs, anys := registry.RateLimitingQueues[workqtest.Request](), registry.RateLimitingQueues[any]()
	for _, e := range registry.RateLimitingQueues[string]() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			workqtest.RunRateLimiting(t, workqtest.RateLimitingQueues{Strings: e.New, Requests: sameImpl(t, reqs, e.Name), Any: sameImpl(t, anys, e.Name)}, e.Guarantees)
		})
	}
}

// TestWorkQueueGuarantees pins what each work queue declares: the suites
// skip by these declarations, so a wrong one silently skips the wrong
// properties. A layer declares its base's.
func TestWorkQueueGuarantees(t *testing.T) {
	fifo := workqtest.Guarantees{Order: guarantee.OrderFIFO}
	drains := workqtest.Guarantees{Order: guarantee.OrderFIFO, DrainsQueued: true}
	perShard := workqtest.Guarantees{Order: guarantee.OrderPerShard, DrainsQueued: true}
	registrytest.CheckGuarantees(t, registry.WorkQueues[string](), map[string]workqtest.Guarantees{
		registry.Baseline: fifo, "mutex": drains, "sharded": perShard, "ring": drains,
	})
	layered := map[string]workqtest.Guarantees{
		registry.Baseline: fifo, "layer-clientgo": fifo, "layer-mutex": drains, "layer-sharded": perShard, "layer-ring": drains,
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

package pipeline

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/workq/workqtest"
	"github.com/queuelab/queuelab/stores/storetest"
)

// droppingQueue loses every 1000th Add.
type droppingQueue struct {
	workqueue.TypedInterface[string]
	adds atomic.Int64
}

func (q *droppingQueue) Add(item string) {
	if q.adds.Add(1)%1000 == 0 {
		return
	}
	q.TypedInterface.Add(item)
}

// losingFIFO loses the first Delete the Reflector hands it.
type losingFIFO struct {
	cache.Queue
	deletes atomic.Int64
}

func (f *losingFIFO) Delete(obj any) error {
	if f.deletes.Add(1) == 1 {
		return nil
	}
	return f.Queue.Delete(obj)
}

// losingStore loses the first deletion written to it.
type losingStore struct {
	cache.ThreadSafeStore
	deletes atomic.Int64
}

func (s *losingStore) DeleteWithObject(key string, obj any) {
	if s.deletes.Add(1) == 1 {
		return
	}
	s.ThreadSafeStore.DeleteWithObject(key, obj)
}

// flickeringStore answers every 500th Get with "absent", as a store whose
// readers can miss a key that is there (LockFree did, before its inserts
// and deletes were ordered across calls).
type flickeringStore struct {
	cache.ThreadSafeStore
	gets atomic.Int64
}

func (s *flickeringStore) Get(key string) (any, bool) {
	obj, ok := s.ThreadSafeStore.Get(key)
	if ok && s.gets.Add(1)%500 == 0 {
		return nil, false
	}
	return obj, ok
}

// losingDeltaFIFO is client-go's DeltaFIFO as an informer builds it,
// losing the first Delete.
func losingDeltaFIFO(o deltafifo.Options) (cache.Queue, error) {
	return &losingFIFO{Queue: cache.NewDeltaFIFOWithOptions(o.DeltaFIFOOptions)}, nil
}

// brokenRegistries are the real registries plus one broken entry per
// family, so the broken stacks are resolved by name like any other and
// built as every stack is: the drop-in informer takes any store and FIFO.
func brokenRegistries() Registries {
	r := Default()
	r.WorkQs = append(r.WorkQs, WorkQEntry{Name: "dropsadds", New: func() workqueue.TypedInterface[string] {
		return &droppingQueue{TypedInterface: workqueue.NewTyped[string]()}
	}, Guarantees: workqtest.Guarantees{}})
	r.FIFOs = append(r.FIFOs, FIFOEntry{Name: "losesdelete", New: informer.DeltaFIFO(losingDeltaFIFO, deltafifo.Options{})})
	r.Stores = append(r.Stores, StoreEntry{Name: "losesdelete", New: func(ix cache.Indexers) cache.ThreadSafeStore {
		return &losingStore{ThreadSafeStore: cache.NewThreadSafeStore(ix, cache.Indices{})}
	}, Guarantees: storetest.Guarantees{}})
	r.Stores = append(r.Stores, StoreEntry{Name: "flickers", New: func(ix cache.Indexers) cache.ThreadSafeStore {
		return &flickeringStore{ThreadSafeStore: cache.NewThreadSafeStore(ix, cache.Indices{})}
	}, Guarantees: storetest.Guarantees{}})
	return r
}

// TestBrokenImplementationsAreCaught is the harness's own acceptance test:
// a run over an implementation that loses work must fail, naming keys.
//
// Each case gets a stream in which the loss cannot be healed before the end
// (relists rewrite the whole store and re-enqueue every key; a later change
// of the same key covers a dropped one): a dropped Add is observable when it
// was its key's last change, a lost store delete when the key stays deleted.
func TestBrokenImplementationsAreCaught(t *testing.T) {
	sparse := func(c *gen.Config) { // most keys change once, nothing heals
		c.Objects, c.Events, c.Zipf = 20_000, 3000, 0
		c.RelistEvery, c.Missed, c.ResyncEvery = 0, 0, 0
	}
	noReadds := func(c *gen.Config) { // deleted keys stay deleted
		c.Add, c.Update, c.Delete = 0, 0.85, 0.15
		c.RelistEvery, c.Missed, c.ResyncEvery = 0, 0, 0
	}
	cases := []struct {
		kind   Kind
		impl   string
		stream func(*gen.Config)
		wants  []account.Check
	}{
		{WorkQueue, "dropsadds", sparse, []account.Check{account.NotReconciled}},
		{Informer, "clientgo+clientgo+dropsadds", sparse, []account.Check{account.NotReconciled}},
		{Informer, "clientgo+losesdelete+clientgo", nil, []account.Check{account.DeleteMismatch}},
		{Informer, "losesdelete+deltafifo-clientgo+clientgo", noReadds, []account.Check{account.StoreMismatch, account.StaleRead, account.NotReconciled}},
		{Store, "clientgo+losesdelete", nil, []account.Check{account.DeleteMismatch}},
		{Store, "losesdelete+deltafifo-clientgo", noReadds, []account.Check{account.StoreMismatch}},
		{Informer, "flickers+deltafifo-clientgo+clientgo", nil, []account.Check{account.StaleRead}},
		{Store, "flickers+deltafifo-clientgo", nil, []account.Check{account.StaleRead}},
	}
	reg := brokenRegistries()
	for _, c := range cases {
		t.Run(string(c.kind)+"/"+c.impl, func(t *testing.T) {
			watchdog.Run(t, watchdog.DefaultTimeout, func() {
				s, _ := smallStream(t)
				cfg := s.Config
				if c.stream != nil {
					c.stream(&cfg)
				}
				s, err := gen.Generate(cfg)
				require.NoError(t, err)
				stacks, err := reg.Select(c.kind, c.impl)
				require.NoError(t, err)
				o := testOptions()
				o.ErrorRate = 0
				o.Stall = 500 * time.Millisecond
				res, err := Run(context.Background(), c.kind, stacks[0], s, gen.NewObjects(s), o)
				require.NoError(t, err)
				require.False(t, res.OK(), "a broken implementation passed")
				got := map[account.Check]bool{}
				for _, v := range res.Violations {
					got[v.Check] = true
					assert.NotEmpty(t, v.Keys, "%s names no key", v.Check)
				}
				for _, w := range c.wants {
					assert.True(t, got[w], "%s not reported; got:\n%s", w, account.Summary(res.Violations))
				}
			})
		})
	}
}

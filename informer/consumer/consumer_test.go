package consumer

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/stores"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a handler writing down what it was told, as "add ns/name
// rv initial", "update ns/name rv->rv" and "delete ns/name".
type recorder struct{ suite.Lines }

func (r *recorder) OnAdd(obj any, initial bool) {
	r.Log(fmt.Sprintf("add %s %s %v", key(obj), rv(obj), initial))
}

func (r *recorder) OnUpdate(old, obj any) {
	r.Log(fmt.Sprintf("update %s %s->%s", key(obj), rv(old), rv(obj)))
}

func (r *recorder) OnDelete(obj any) { r.Log("delete " + key(obj)) }

func key(obj any) string {
	k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	return k
}

func rv(obj any) string {
	if o, ok := obj.(interface{ GetResourceVersion() string }); ok {
		return o.GetResourceVersion()
	}
	return "?"
}

// variant is one implementation a test runs over: its name and how to
// build it.
type variant[F any] struct {
	name string
	new  F
}

// storeOf builds a library store with the indexers it is given, as the
// consumer's tests build each store.
func storeOf[S cache.ThreadSafeStore](newStore func(stores.Options) (S, error)) func(cache.Indexers) (cache.ThreadSafeStore, error) {
	return func(idx cache.Indexers) (cache.ThreadSafeStore, error) {
		return newStore(stores.Options{Indexers: idx})
	}
}

// deltaFIFOOf builds a library DeltaFIFO with client-go's options as they
// are given.
func deltaFIFOOf[Q cache.Queue](newQueue func(deltafifo.Options) (Q, error)) func(cache.DeltaFIFOOptions) (cache.Queue, error) {
	return func(o cache.DeltaFIFOOptions) (cache.Queue, error) {
		return newQueue(deltafifo.Options{DeltaFIFOOptions: o})
	}
}

// testStores are the stores the consumer is checked over: client-go's
// threadSafeMap and each of the library's.
var testStores = []variant[func(cache.Indexers) (cache.ThreadSafeStore, error)]{
	{"clientgo", func(idx cache.Indexers) (cache.ThreadSafeStore, error) {
		return cache.NewThreadSafeStore(idx, cache.Indices{}), nil
	}},
	{"mutex", storeOf(stores.NewMutex)},
	{"sharded", storeOf(stores.NewSharded)},
	{"lockfree", storeOf(stores.NewLockFree)},
	{"snapshot", storeOf(stores.NewSnapshot)},
}

// testDeltaFIFOs are the DeltaFIFOs Run is checked over: client-go's and
// each of the library's.
var testDeltaFIFOs = []variant[func(cache.DeltaFIFOOptions) (cache.Queue, error)]{
	{"clientgo", func(o cache.DeltaFIFOOptions) (cache.Queue, error) { return cache.NewDeltaFIFOWithOptions(o), nil }},
	{"mutex", deltaFIFOOf(deltafifo.NewMutex)},
	{"sharded", deltaFIFOOf(deltafifo.NewSharded)},
	{"ring", deltaFIFOOf(deltafifo.NewRing)},
}

// newConsumer is a consumer writing to store and notifying h; it fails t
// if the options are refused.
func newConsumer(t *testing.T, store cache.Store, h cache.ResourceEventHandler) *Consumer {
	t.Helper()
	c, err := New(Options{Store: store, Handler: h})
	require.NoError(t, err)
	return c
}

// clientGoIndexer is an informer's store over client-go's threadSafeMap.
func clientGoIndexer() *stores.Indexer {
	return stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.NewThreadSafeStore(testobj.Indexers(), cache.Indices{}))
}

// mutexIndexer is an informer's store over the library's mutex store with
// indexers (testobj.Indexers when none are given).
func mutexIndexer(t *testing.T, indexers ...cache.Indexers) *stores.Indexer {
	t.Helper()
	idx := testobj.Indexers()
	if len(indexers) > 0 {
		idx = indexers[0]
	}
	tss, err := stores.NewMutex(stores.Options{Indexers: idx})
	require.NoError(t, err)
	return stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, tss)
}

// eachStore runs body on a fresh consumer (recording its notifications)
// over each store, and two versions of object ns/a and one of ns/b.
func eachStore(t *testing.T, body func(t *testing.T, store *stores.Indexer, h *recorder, c *Consumer, a1, a2, b1 any)) {
	for _, st := range testStores {
		t.Run("store="+st.name, func(t *testing.T) {
			tss, err := st.new(testobj.Indexers())
			require.NoError(t, err)
			store, h := stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, tss), &recorder{}
			a1, a2 := testobj.Meta("ns", "a", "1"), testobj.Meta("ns", "a", "2")
			body(t, store, h, newConsumer(t, store, h), a1, a2, testobj.Meta("ns", "b", "1"))
		})
	}
}

func TestProcessAppliesDeltasWithInformerSemantics(t *testing.T) {
	eachStore(t, func(t *testing.T, store *stores.Indexer, h *recorder, c *Consumer, a1, a2, b1 any) {
		require.NoError(t, c.Process(cache.Deltas{{Type: cache.Replaced, Object: a1}}, true))
		require.NoError(t, c.Process(cache.Deltas{{Type: cache.Added, Object: b1}, {Type: cache.Deleted, Object: b1}}, false))
		require.NoError(t, c.Process(cache.Deltas{{Type: cache.Updated, Object: a2}, {Type: cache.Sync, Object: a2}}, false))
		tomb := cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: a2}
		require.NoError(t, c.Process(cache.Deltas{{Type: cache.Deleted, Object: tomb}}, false))
		require.NoError(t, c.Process(cache.Deltas{{Type: cache.Bookmark, Object: cache.BookmarkInfo{ResourceVersion: "7"}}}, false))

		assert.Equal(t, []string{
			"add ns/a 1 true",
			"add ns/b 1 false", "delete ns/b",
			"update ns/a 1->2", "update ns/a 2->2",
			"delete ns/a",
		}, h.Got())
		assert.Empty(t, store.ListKeys())
	})
}

func TestProcessRejectsWhatIsNotADelta(t *testing.T) {
	c := newConsumer(t, clientGoIndexer(), &recorder{})
	assert.ErrorIs(t, c.Process("not deltas", false), errNotDeltas)
	assert.ErrorContains(t, c.Process(cache.Deltas{{Type: cache.Bookmark, Object: "x"}}, false), "without BookmarkInfo")
	assert.ErrorContains(t, c.Process(cache.Deltas{{Type: "Bogus", Object: testobj.Meta("ns", "a", "1")}}, false), "unsupported delta type")
}

func TestProcessBatchIsOneTransactionThenTheNotifications(t *testing.T) {
	eachStore(t, func(t *testing.T, store *stores.Indexer, h *recorder, c *Consumer, a1, a2, b1 any) {
		c1 := testobj.Meta("ns", "c", "1")
		require.NoError(t, c.ProcessBatch([]cache.Delta{{Type: cache.Added, Object: a1}, {Type: cache.Added, Object: b1}}, true))
		require.NoError(t, c.ProcessBatch([]cache.Delta{
			{Type: cache.Updated, Object: a2}, {Type: cache.Deleted, Object: b1}, {Type: cache.Replaced, Object: c1},
		}, false))
		assert.Equal(t, []string{
			"add ns/a 1 true", "add ns/b 1 true",
			"update ns/a 1->2", "delete ns/b", "add ns/c 1 false",
		}, h.Got())
		assert.ElementsMatch(t, []string{"ns/a", "ns/c"}, store.ListKeys())
		assert.ErrorContains(t, c.ProcessBatch([]cache.Delta{{Type: cache.Bookmark, Object: cache.BookmarkInfo{}}}, false), "not supported in batch")
	})
}

// failingIndex fails for objects named "bad".
func failingIndex(obj any) ([]string, error) {
	if key(obj) == "ns/bad" {
		return nil, errors.New("bad object")
	}
	return []string{"x"}, nil
}

func TestProcessBatchNotifiesOnlyWhatWasApplied(t *testing.T) {
	store := mutexIndexer(t, cache.Indexers{"x": failingIndex})
	h := &recorder{}
	err := newConsumer(t, store, h).ProcessBatch([]cache.Delta{
		{Type: cache.Added, Object: testobj.Meta("ns", "a", "1")},
		{Type: cache.Added, Object: testobj.Meta("ns", "bad", "1")},
		{Type: cache.Added, Object: testobj.Meta("ns", "c", "1")},
	}, false)
	require.ErrorContains(t, err, "batch partly applied")
	assert.Equal(t, []string{"add ns/a 1 false", "add ns/c 1 false"}, h.Got())
	assert.ElementsMatch(t, []string{"ns/a", "ns/c"}, store.ListKeys())
}

// plainIndexer hides the Transaction method of the indexer it wraps.
type plainIndexer struct{ cache.Indexer }

func TestProcessBatchWithoutTransactionsGoesDeltaByDelta(t *testing.T) {
	store, h := clientGoIndexer(), &recorder{}
	c := newConsumer(t, plainIndexer{store}, h)
	require.NoError(t, c.ProcessBatch([]cache.Delta{
		{Type: cache.Added, Object: testobj.Meta("ns", "a", "1")},
		{Type: cache.Added, Object: testobj.Meta("ns", "b", "1")},
	}, false))
	assert.Equal(t, []string{"add ns/a 1 false", "add ns/b 1 false"}, h.Got())
	err := c.ProcessBatch([]cache.Delta{{Type: "Bogus", Object: testobj.Meta("ns", "a", "2")}, {Type: cache.Deleted, Object: testobj.Meta("ns", "b", "1")}}, false)
	assert.ErrorContains(t, err, "unsupported delta type")
	assert.Equal(t, []string{"ns/a"}, store.ListKeys(), "the batch's other deltas are still applied")
}

// countingHandler signals every notification on seen.
type countingHandler struct {
	recorder
	seen chan struct{}
}

func (c *countingHandler) OnAdd(obj any, initial bool) {
	c.recorder.OnAdd(obj, initial)
	c.seen <- struct{}{}
}

func TestRunDrainsTheQueueUntilClosedAndReportsErrors(t *testing.T) {
	for _, e := range testDeltaFIFOs {
		for _, batch := range []bool{false, true} {
			t.Run(fmt.Sprintf("fifo=%s/batch=%v", e.name, batch), func(t *testing.T) {
				watchdog.Run(t, watchdog.DefaultTimeout, func() {
					store := mutexIndexer(t, cache.Indexers{"x": failingIndex})
					objs := testobj.Population(100, 4, 4)
					h := &countingHandler{seen: make(chan struct{}, len(objs))}
					q, err := e.new(cache.DeltaFIFOOptions{KnownObjects: store, KeyFunction: cache.MetaNamespaceKeyFunc})
					require.NoError(t, err)
					require.NoError(t, q.Add(testobj.Meta("ns", "bad", "1")))
					for _, o := range objs {
						require.NoError(t, q.Add(o))
					}
					errs := make(chan error, 1)
					done := make(chan struct{})
					go func() {
						defer close(done)
						newConsumer(t, store, h).Run(q, batch, func(err error) { errs <- err })
					}()
					for range objs {
						<-h.seen
					}
					q.Close()
					<-done
					assert.ErrorContains(t, <-errs, "bad object", "the failed write is reported and the rest still applied")
					assert.Len(t, store.ListKeys(), len(objs))
					assert.Len(t, h.Got(), len(objs))
				})
			})
		}
	}
}

package consumer

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/stores"
)

func TestReplacedAllIsOneReplaceThenDeletionsThenListOrder(t *testing.T) {
	eachStore(t, func(t *testing.T, store *stores.Indexer, h *recorder, c *Consumer, a1, a2, b1 any) {
		c1, d1 := testobj.Meta("ns", "c", "1"), testobj.Meta("ns", "d", "1")
		require.NoError(t, c.Process(cache.Deltas{{Type: cache.ReplacedAll, Object: cache.ReplacedAllInfo{
			ResourceVersion: "5", Objects: []any{a1, b1, d1},
		}}}, true))
		require.NoError(t, c.Process(cache.Deltas{{Type: cache.ReplacedAll, Object: cache.ReplacedAllInfo{
			ResourceVersion: "9", Objects: []any{c1, a2},
		}}}, false))
		assert.Equal(t, []string{
			"add ns/a 1 true", "add ns/b 1 true", "add ns/d 1 true",
			// deletions first (in the store's key order, which is unspecified)
			"delete ns/b", "delete ns/d",
			"add ns/c 1 false", "update ns/a 1->2",
		}, sortDeletes(h.Got()))
		assert.ElementsMatch(t, []string{"ns/a", "ns/c"}, store.ListKeys())
		assert.Equal(t, "9", store.LastStoreSyncResourceVersion())
	})
}

// sortDeletes orders each run of consecutive "delete" lines, whose order
// follows the store's unspecified ListKeys order.
func sortDeletes(evs []string) []string {
	out := append([]string(nil), evs...)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && strings.HasPrefix(out[j], "delete ") {
			j++
		}
		if j == i {
			i++
			continue
		}
		slices.Sort(out[i:j])
		i = j
	}
	return out
}

func TestReplacedAllTombstonesCarryTheStoredObject(t *testing.T) {
	store := mutexIndexer(t)
	var got []any
	h := cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) { got = append(got, obj) }}
	c := newConsumer(t, store, h)
	b1 := testobj.Meta("ns", "b", "1")
	require.NoError(t, store.Add(b1))
	require.NoError(t, c.Process(cache.Deltas{{Type: cache.ReplacedAll, Object: cache.ReplacedAllInfo{}}}, false))
	assert.Equal(t, []any{cache.DeletedFinalStateUnknown{Key: "ns/b", Obj: b1}}, got)
}

func TestReplacedAllWithAKeyErrorChangesNothing(t *testing.T) {
	store, h := clientGoIndexer(), &recorder{}
	a1 := testobj.Meta("ns", "a", "1")
	require.NoError(t, store.Add(a1))
	c := newConsumer(t, store, h)
	err := c.Process(cache.Deltas{{Type: cache.ReplacedAll, Object: cache.ReplacedAllInfo{
		ResourceVersion: "2", Objects: []any{testobj.Meta("ns", "b", "1"), "no metadata"},
	}}}, false)
	var keyErr cache.KeyError
	require.ErrorAs(t, err, &keyErr)
	assert.Equal(t, []string{"ns/a"}, store.ListKeys())
	assert.Empty(t, h.Got())
}

func TestSyncAllUpdatesEveryStoredObjectWithItself(t *testing.T) {
	eachStore(t, func(t *testing.T, store *stores.Indexer, h *recorder, c *Consumer, a1, _, b1 any) {
		require.NoError(t, c.ProcessBatch([]cache.Delta{{Type: cache.Added, Object: a1}, {Type: cache.Added, Object: b1}}, false))
		require.NoError(t, c.Process(cache.Deltas{{Type: cache.SyncAll, Object: cache.SyncAllInfo{}}}, false))
		assert.ElementsMatch(t, []string{"add ns/a 1 false", "add ns/b 1 false", "update ns/a 1->1", "update ns/b 1->1"}, h.Got())
	})
}

func TestInOrderEventsRejectWrongPayloads(t *testing.T) {
	store := clientGoIndexer()
	c := newConsumer(t, store, &recorder{})
	assert.ErrorContains(t, c.Process(cache.Deltas{{Type: cache.ReplacedAll, Object: "x"}}, false), "without ReplacedAllInfo")
	assert.ErrorContains(t, c.Process(cache.Deltas{{Type: cache.SyncAll, Object: "x"}}, false), "without SyncAllInfo")
	assert.ErrorContains(t, c.ProcessBatch([]cache.Delta{{Type: cache.ReplacedAll, Object: cache.ReplacedAllInfo{}}}, false), "not supported in batch")
	assert.ErrorContains(t, c.ProcessBatch([]cache.Delta{
		{Type: cache.Added, Object: testobj.Meta("ns", "a", "1")}, {Type: "Bogus", Object: testobj.Meta("ns", "b", "1")},
	}, false), "not supported in batch")
	assert.Empty(t, store.ListKeys(), "a batch with an unknown type applies nothing")
}

func TestNewNeedsAStore(t *testing.T) {
	_, err := New(Options{})
	assert.True(t, errors.Is(err, errNoStore))
	store := mutexIndexer(t)
	c, err := New(Options{Store: store}) // no handler: the store alone is maintained
	require.NoError(t, err)
	require.NoError(t, c.Process(cache.Deltas{{Type: cache.Added, Object: testobj.Meta("ns", "a", "1")}}, false))
	assert.Equal(t, []string{"ns/a"}, store.ListKeys())
}

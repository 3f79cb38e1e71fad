package informer_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/stores"
)

func identity(obj any) (any, error) { return obj, nil }

// TestBadInput: every invalid option or argument comes back as an error
// naming the problem, and leaves nothing half-built.
func TestBadInput(t *testing.T) {
	lw := informertest.NewSource().ListerWatcher()
	for name, c := range map[string]struct {
		lw   cache.ListerWatcher
		opts informer.Options
		want string
	}{
		"nil-lister-watcher": {nil, informer.Options{}, "nil ListerWatcher"},
		"negative-resync":    {lw, informer.Options{SharedIndexInformerOptions: cache.SharedIndexInformerOptions{ResyncPeriod: -1}}, "negative resync period"},
		"fifo-options":       {lw, informer.Options{FIFO: informer.DeltaFIFO(deltafifo.NewMutex, deltafifo.Options{Shards: 4})}, "FIFO: deltafifo: NewMutex"},
		"fifo-transformer":   {lw, informer.Options{FIFO: informer.InOrderFIFO(inorder.NewMutex, inorder.Options{Transformer: identity})}, "Transformer is the informer's to set"},
		"fifo-known-objects": {lw, informer.Options{FIFO: informer.DeltaFIFO(deltafifo.NewRing, deltafifo.Options{DeltaFIFOOptions: cache.DeltaFIFOOptions{KnownObjects: cache.NewStore(cache.MetaNamespaceKeyFunc)}})}, "KnownObjects is the informer's to set"},
		"fifo-no-new":        {lw, informer.Options{FIFO: informer.FIFO{PublishesMetrics: true}}, "PublishesMetrics is set without FIFO.New"},
		"store-options":      {lw, informer.Options{Store: informer.StoreOf(stores.NewMutex, stores.Options{Shards: 4})}, "store: stores: NewMutex"},
		"store-indexers":     {lw, informer.Options{Store: informer.StoreOf(stores.NewSnapshot, stores.Options{Indexers: cache.Indexers{"x": cache.MetaNamespaceIndexFunc}})}, "Indexers is the informer's to set"},
	} {
		t.Run(name, func(t *testing.T) {
			inf, err := informer.NewSharedIndexInformer(c.lw, &corev1.Pod{}, c.opts)
			require.ErrorContains(t, err, c.want)
			assert.Nil(t, inf)
			if c.lw != nil {
				_, err = informer.NewInformerFunc(c.opts)
				assert.ErrorContains(t, err, c.want, "NewInformerFunc checks the same options")
			}
		})
	}

	inf, err := informer.NewSharedIndexInformer(lw, &corev1.Pod{}, informer.Options{})
	require.NoError(t, err)
	_, err = inf.AddEventHandler(nil)
	assert.ErrorContains(t, err, "nil event handler")
	_, err = inf.AddEventHandlerWithResyncPeriod(cache.ResourceEventHandlerFuncs{}, -1)
	assert.NoError(t, err, "a negative handler period is client-go's check period (TestResyncWarnings)")
	assert.ErrorContains(t, inf.RemoveEventHandler(nil), "invalid key type", "client-go's message starts so")
	assert.Panics(t, func() { informer.MustNewSharedIndexInformer(nil, &corev1.Pod{}, informer.Options{}) })
}

// TestPartsServeManyInformers: a FIFO and a Store are built once per
// informer from the same values (NewInformerFunc's Func reuses one
// Options), so building one informer must not change what the next gets.
func TestPartsServeManyInformers(t *testing.T) {
	opts := informer.Options{
		FIFO:  informer.DeltaFIFO(deltafifo.NewSharded, deltafifo.Options{Shards: 2}),
		Store: informer.StoreOf(stores.NewSharded, stores.Options{Shards: 2}),
	}
	for i := range 3 {
		opts.Indexers = cache.Indexers{"i" + strconv.Itoa(i): cache.MetaNamespaceIndexFunc}
		inf, err := informer.NewSharedIndexInformer(informertest.NewSource().ListerWatcher(), &corev1.Pod{}, opts)
		require.NoError(t, err, "informer %d", i)
		assert.Len(t, inf.GetIndexer().GetIndexers(), 1, "informer %d has only its own indexers", i)
	}
	opts.FIFO = informer.InOrderFIFO(inorder.NewMutex, inorder.Options{})
	for i := range 2 {
		_, err := informer.NewSharedIndexInformer(informertest.NewSource().ListerWatcher(), &corev1.Pod{}, opts)
		require.NoError(t, err, "in-order informer %d", i)
	}
}

package informer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// crashChild, set in the environment, makes
// TestHandlerPanicCrashesByDefault run the informer whose handler panics
// instead of watching a child do it.
const crashChild = "QUEUELAB_INFORMER_CRASH_CHILD"

// TestHandlerPanicCrashesByDefault: with the zero Options (no
// RecoverHandlerPanics) and utilruntime.ReallyCrash at its default, a
// handler's panic is utilruntime.HandleCrash's: logged with its location
// and stack, then re-panicked, which ends the process — as client-go's
// informer does. The informer runs in a child process (this test binary
// again) so the crash ends only the child.
func TestHandlerPanicCrashesByDefault(t *testing.T) {
	if os.Getenv(crashChild) != "" {
		runPanickingInformer(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHandlerPanicCrashesByDefault$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChild+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the child must crash; it ended with %v:\n%s", err, out)
	assert.Equal(t, 2, exit.ExitCode(), "a Go panic's exit status")
	assert.Contains(t, string(out), "panic: informer test: handler panics on ns/b")
	assert.Regexp(t, `options_test.go:\d+\] "Observed a panic" panic="informer test: handler panics on ns/b"`, string(out),
		"HandleCrash logged the panic at the handler's line")
	assert.NotContains(t, string(out), "the child survived", "the event after the panic was never handled")
}

// runPanickingInformer is the child: its handler panics on ns/b; if the
// informer recovers, the handler gets ns/c and the child says so.
func runPanickingInformer(t *testing.T) {
	src := informertest.NewSource()
	inf, err := informer.NewSharedIndexInformer(src.ListerWatcher(), &corev1.Pod{}, informer.Options{})
	require.NoError(t, err)
	survived := make(chan struct{})
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		switch obj.(*corev1.Pod).Name {
		case "b":
			panic("informer test: handler panics on ns/b")
		case "c":
			close(survived)
		}
	}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))
	for _, n := range []string{"a", "b", "c"} {
		src.Create(informertest.Pod("ns", n, "x"))
	}
	<-survived
	fmt.Println("the child survived the panic")
}

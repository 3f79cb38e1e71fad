package informer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
)

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
		"unknown-fifo":       {lw, informer.Options{FIFO: "nope"}, `FIFO: unknown implementation "nope"`},
		"unknown-store":      {lw, informer.Options{Store: "nope"}, `store: unknown implementation "nope"`},
		"negative-resync":    {lw, informer.Options{SharedIndexInformerOptions: cache.SharedIndexInformerOptions{ResyncPeriod: -1}}, "negative resync period"},
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

package informer_test

import (
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSharedIndexInformer holds client-go's informer and every store × FIFO
// combination of this package to the same suite, then the default
// combination with RecoverHandlerPanics to the suite's [ext] property.
func TestSharedIndexInformer(t *testing.T) {
	for _, e := range informer.Impls() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			informertest.RunSharedIndexInformer(t, newFrom(e), informertest.WithOrder(e.Guarantees.FIFO.Order))
		})
	}
	t.Run("impl=default/recover-handler-panics", func(t *testing.T) {
		informertest.RunSharedIndexInformer(t, func(_ *testing.T, lw cache.ListerWatcher, obj runtime.Object, o cache.SharedIndexInformerOptions) cache.SharedIndexInformer {
			return informer.MustNewSharedIndexInformer(lw, obj, informer.Options{SharedIndexInformerOptions: o, RecoverHandlerPanics: true})
		}, informertest.WithExt())
	})
}

package informer_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/queues/informer"
	"github.com/queuelab/queuelab/queues/informer/informertest"
	"github.com/queuelab/queuelab/queues/registry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSharedIndexInformer holds client-go's informer and every store × FIFO
// combination of this package to the same suite.
func TestSharedIndexInformer(t *testing.T) {
	for _, e := range informer.Impls() {
		t.Run("impl="+e.Name, func(t *testing.T) {
			opts := []informertest.Option{informertest.WithOrder(e.Guarantees.FIFO.Order)}
			if e.Name != registry.Baseline {
				opts = append(opts, informertest.WithExt())
			}
			informertest.RunSharedIndexInformer(t, newFrom(e), opts...)
		})
	}
}

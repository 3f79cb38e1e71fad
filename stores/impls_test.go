package stores_test

import (
	"testing"

	"go.uber.org/goleak"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/stores"
	"github.com/queuelab/queuelab/stores/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// suiteOptions translates an entry's declared guarantees into suite options.
func suiteOptions(g stores.Guarantees) []storetest.Option {
	var opts []storetest.Option
	if g.Ext {
		opts = append(opts, storetest.WithExt())
	}
	if !g.AtomicTransactions {
		opts = append(opts, storetest.WithNonAtomicTransactions())
	}
	return opts
}

// TestThreadSafeStore runs the conformance suite over every registered
// store, client-go's included.
func TestThreadSafeStore(t *testing.T) {
	for _, e := range stores.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) {
			storetest.RunThreadSafeStore(t, func(_ *testing.T, ix cache.Indexers) cache.ThreadSafeStore {
				return e.New(ix)
			}, suiteOptions(e.Guarantees)...)
		})
	}
}

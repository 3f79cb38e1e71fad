package inorder_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/inorder/inordertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newQueue adapts a registry entry to the suite, failing on rejected options.
func newQueue(e inorder.Entry) inordertest.NewQueue {
	return func(t *testing.T, opts inorder.Options) inorder.Queue {
		q, err := e.New(opts)
		if err != nil {
			t.Fatalf("%s.New(%+v): %v", e.Name, opts, err)
		}
		t.Cleanup(q.Close)
		return q
	}
}

func TestInOrderFIFO(t *testing.T) {
	for _, e := range inorder.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) {
			inordertest.RunInOrderFIFO(t, newQueue(e), inordertest.OptionsFor(e.Guarantees)...)
		})
	}
}

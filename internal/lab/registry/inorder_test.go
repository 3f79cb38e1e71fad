package registry_test

import (
	"errors"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/lab/registry/registrytest"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/inorder/inordertest"
)

type inOrderEntry = registry.Entry[func(inorder.Options) (inorder.Queue, error), inordertest.Guarantees]

// inOrderDiffSeeds are the seeded operation sequences (seeds 0 to 39)
// every in-order FIFO replays against client-go's RealFIFO.
var inOrderDiffSeeds = seedRange(0, 40)

// newInOrder adapts a registry entry to the suite, failing on rejected
// options.
func newInOrder(e inOrderEntry) inordertest.NewQueue {
	return func(t *testing.T, opts inorder.Options) inorder.Queue {
		q, err := e.New(opts)
		if err != nil {
			t.Fatalf("%s.New(%+v): %v", e.Name, opts, err)
		}
		t.Cleanup(q.Close)
		return q
	}
}

func TestInOrderFIFOsGuarantees(t *testing.T) {
	registrytest.CheckGuarantees(t, registry.InOrderFIFOs(), map[string]inordertest.Guarantees{
		"clientgo":           {Atomic: true, LockWhileProcessing: true},
		"clientgo-nonatomic": {PerObject: true},
		"mutex":              {Atomic: true, PerObject: true, LockWhileProcessing: true},
		"lockfree":           {Atomic: true},
	})
}

// TestInOrderFIFOsRefuseUndeclaredModes: an entry rejects, with
// ErrUnsupportedMode, exactly the modes it does not declare, so no suite or
// benchmark runs it in a mode it would only pretend to have; and every
// entry rejects a negative batch size.
func TestInOrderFIFOsRefuseUndeclaredModes(t *testing.T) {
	known := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, e := range registry.InOrderFIFOs() {
		for _, c := range []struct {
			opts     inorder.Options
			declared bool
		}{
			{inorder.Options{}, e.Guarantees.Atomic},
			{inorder.Options{KnownObjects: known}, e.Guarantees.PerObject},
			{inorder.Options{LockWhileProcessing: true}, e.Guarantees.Atomic && e.Guarantees.LockWhileProcessing},
		} {
			q, err := e.New(c.opts)
			switch {
			case c.declared && err != nil:
				t.Errorf("%s.New(%+v): %v, want a queue (the mode is declared)", e.Name, c.opts, err)
			case !c.declared && !errors.Is(err, inorder.ErrUnsupportedMode):
				t.Errorf("%s.New(%+v): %v, want ErrUnsupportedMode", e.Name, c.opts, err)
			}
			if q != nil {
				q.Close()
			}
		}
		if _, err := e.New(inorder.Options{BatchSize: -1}); err == nil {
			t.Errorf("%s accepted BatchSize -1", e.Name)
		}
	}
}

// TestInOrderFIFOs runs the in-order suite over every registered queue,
// client-go's RealFIFO in both its modes included: a suite client-go fails
// is a wrong suite.
func TestInOrderFIFOs(t *testing.T) {
	for _, e := range registry.InOrderFIFOs() {
		t.Run("impl="+e.Name, func(t *testing.T) { inordertest.Run(t, newInOrder(e), e.Guarantees) })
	}
}

// TestInOrderFIFOsDiff replays seeded operation sequences and every
// committed op file of testdata/diff/inorder on every registered queue
// against client-go's RealFIFO, in each mode it declares.
func TestInOrderFIFOsDiff(t *testing.T) {
	diffFamily(t, registry.InOrderFIFOs(), "testdata/diff/inorder", inOrderDiffSeeds, inordertest.SeedOps, diffInOrder)
}

// FuzzInOrderFIFOsDiff feeds fuzz input to the in-order differential check,
// for every registered queue (see FuzzFIFOsDiff for how to run it;
// goroutine scheduling makes one input's coverage differ between runs, so
// keep -fuzzminimizetime small).
func FuzzInOrderFIFOsDiff(f *testing.F) {
	fuzzFamily(f, registry.InOrderFIFOs(), inordertest.SeedOps, diffInOrder)
}

func diffInOrder(t *testing.T, e inOrderEntry, ops []byte) {
	inordertest.Diff(t, newInOrder(e), e.Guarantees, ops)
}

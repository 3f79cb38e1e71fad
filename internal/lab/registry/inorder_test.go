package registry_test

import (
	"errors"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/inorder/inordertest"
)

// inOrderFIFOs wires the in-order family to inordertest: seeds 0 to 39, as
// the family always ran them.
func inOrderFIFOs() queueFamily[func(inorder.Options) (inorder.Queue, error), inordertest.Guarantees] {
	return queueFamily[func(inorder.Options) (inorder.Queue, error), inordertest.Guarantees]{
		list: registry.InOrderFIFOs(), opsDir: "testdata/diff/inorder", seeds: seedRange(0, 40),
		seedOps: inordertest.SeedOps, run: inordertest.Run, diff: inordertest.Diff,
		fresh: func(newQ func(inorder.Options) (inorder.Queue, error), g inordertest.Guarantees) cache.Queue {
			var opts inorder.Options // atomic, the informers' mode, where declared
			if !g.Atomic {
				opts.KnownObjects = cache.NewStore(cache.MetaNamespaceKeyFunc)
			}
			return registry.Must(newQ(opts))
		},
	}
}

func TestInOrderFIFOsCatalogue(t *testing.T) {
	inOrderFIFOs().testCatalogue(t, map[string]inordertest.Guarantees{
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
func TestInOrderFIFOs(t *testing.T) { inOrderFIFOs().testRun(t) }

// TestInOrderFIFOsDiff replays seeded operation sequences and every
// committed op file of testdata/diff/inorder on every registered queue
// against client-go's RealFIFO, in each mode it declares.
func TestInOrderFIFOsDiff(t *testing.T) { inOrderFIFOs().testDiff(t) }

// FuzzInOrderFIFOsDiff feeds fuzz input to the in-order differential check,
// for every registered queue (see FuzzFIFOsDiff for how to run it;
// goroutine scheduling makes one input's coverage differ between runs, so
// keep -fuzzminimizetime small).
func FuzzInOrderFIFOsDiff(f *testing.F) { inOrderFIFOs().fuzz(f) }

package inorder_test

import (
	"errors"
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/inorder/inordertest"
	"github.com/queuelab/queuelab/queues/registry/registrytest"
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

func TestRegistryGuarantees(t *testing.T) {
	registrytest.CheckGuarantees(t, inorder.Impls, map[string]inorder.Guarantees{
		"clientgo":           {Atomic: true, LockWhileProcessing: true},
		"clientgo-nonatomic": {PerObject: true},
		"mutex":              {Atomic: true, PerObject: true, LockWhileProcessing: true},
		"lockfree":           {Atomic: true},
	})
}

// TestUndeclaredModesAreRefused: an entry rejects, with ErrUnsupportedMode,
// exactly the modes it does not declare, so no suite or benchmark runs it in
// a mode it would only pretend to have.
func TestUndeclaredModesAreRefused(t *testing.T) {
	known := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, e := range inorder.Impls {
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
	}
}

func TestInvalidOptions(t *testing.T) {
	for _, e := range inorder.Impls {
		if _, err := e.New(inorder.Options{BatchSize: -1}); err == nil {
			t.Errorf("%s accepted BatchSize -1", e.Name)
		}
	}
}

// TestBatchSizeOption: a custom Options.BatchSize caps PopBatch (the suite
// checks only the default size, which an entry ignoring the option would
// pass); entries that refuse a custom size say so with ErrUnsupportedMode.
func TestBatchSizeOption(t *testing.T) {
	for _, e := range inorder.Impls {
		opts := inorder.Options{BatchSize: 3}
		if !e.Guarantees.Atomic {
			opts.KnownObjects = cache.NewStore(cache.MetaNamespaceKeyFunc)
		}
		q, err := e.New(opts)
		if errors.Is(err, inorder.ErrUnsupportedMode) {
			continue
		}
		if err != nil {
			t.Fatalf("%s.New(%+v): %v", e.Name, opts, err)
		}
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			if err := q.Add(&metav1.ObjectMeta{Namespace: "ns", Name: name}); err != nil {
				t.Fatal(err)
			}
		}
		var sizes []int
		for taken := 0; taken < 5; taken += sizes[len(sizes)-1] { // never blocks on an empty queue
			err := q.PopBatch(func(ds []cache.Delta, _ bool) error { sizes = append(sizes, len(ds)); return nil },
				func(item any, _ bool) error { sizes = append(sizes, len(item.(cache.Deltas))); return nil })
			if err != nil {
				t.Fatal(err)
			}
		}
		q.Close()
		if len(sizes) != 2 || sizes[0] != 3 || sizes[1] != 2 {
			t.Errorf("%s with BatchSize 3: batches of %v events, want [3 2]", e.Name, sizes)
		}
	}
}

package inorder_test

import (
	"errors"
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/inorder"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The in-order FIFO contract is checked by inordertest.Run, which the lab
// runs over every in-order FIFO it catalogues, client-go's RealFIFO in both
// modes included (internal/lab/registry); this file covers what is specific
// to the package's constructors.

// variants are the package's constructors, for the option checks every
// variant must pass.
var variants = map[string]func(inorder.Options) (inorder.Queue, error){
	"mutex":    func(o inorder.Options) (inorder.Queue, error) { return inorder.NewMutex(o) },
	"lockfree": func(o inorder.Options) (inorder.Queue, error) { return inorder.NewLockFree(o) },
}

func TestInvalidOptions(t *testing.T) {
	for name, build := range variants {
		if _, err := build(inorder.Options{BatchSize: -1}); err == nil {
			t.Errorf("%s accepted BatchSize -1", name)
		}
	}
}

// TestLockFreeRefusesPerObjectMode: a per-object Replace must read the
// queued events, which the lock-free queue cannot scan, so it refuses the
// mode (and LockWhileProcessing) instead of pretending to have it.
func TestLockFreeRefusesPerObjectMode(t *testing.T) {
	for _, opts := range []inorder.Options{
		{KnownObjects: cache.NewStore(cache.MetaNamespaceKeyFunc)},
		{LockWhileProcessing: true},
	} {
		if _, err := inorder.NewLockFree(opts); !errors.Is(err, inorder.ErrUnsupportedMode) {
			t.Errorf("NewLockFree(%+v): %v, want ErrUnsupportedMode", opts, err)
		}
	}
}

// TestBatchSizeOption: a custom Options.BatchSize caps PopBatch (the suite
// checks only the default size, which an entry ignoring the option would
// pass).
func TestBatchSizeOption(t *testing.T) {
	for name, build := range variants {
		q, err := build(inorder.Options{BatchSize: 3})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
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
			t.Errorf("%s with BatchSize 3: batches of %v events, want [3 2]", name, sizes)
		}
	}
}

package deltafifo_test

import (
	"testing"

	"go.uber.org/goleak"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/deltafifo"
)

// The DeltaFIFO contract is checked by deltafifotest.Run, which the lab
// runs over every DeltaFIFO it catalogues (internal/lab/registry); this
// file covers what is specific to the package's constructors.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestConstructorsRejectBadSettings: an invalid combination of options
// comes back as an error, never as a queue that misbehaves later.
func TestConstructorsRejectBadSettings(t *testing.T) {
	for name, build := range map[string]func() (any, error){
		"NewSharded with -1 shards":         func() (any, error) { return deltafifo.NewSharded(deltafifo.Options{Shards: -1}) },
		"NewRing with too many shards":      func() (any, error) { return deltafifo.NewRing(deltafifo.Options{Shards: 1 << 20}) },
		"NewRing with a negative ring size": func() (any, error) { return deltafifo.NewRing(deltafifo.Options{RingSize: -5}) },
		"NewMutex with shards":              func() (any, error) { return deltafifo.NewMutex(deltafifo.Options{Shards: 2}) },
	} {
		if q, err := build(); err == nil {
			t.Errorf("%s succeeded: %v", name, q)
		}
	}
	if q, err := deltafifo.NewSharded(deltafifo.Options{Shards: 3}); err != nil || q == nil {
		t.Errorf("NewSharded with 3 shards (rounded up to 4): %v", err)
	}
}

func TestNameComesFromOptions(t *testing.T) {
	if n := mustMutex(t, deltafifo.Options{}).Name(); n != "DeltaFIFO" {
		t.Errorf("default name %q, want DeltaFIFO (as client-go)", n)
	}
	if n := mustMutex(t, deltafifo.Options{DeltaFIFOOptions: cache.DeltaFIFOOptions{Name: "pods"}}).Name(); n != "pods" {
		t.Errorf("name %q, want pods", n)
	}
}

func mustMutex(t *testing.T, opts deltafifo.Options) *deltafifo.Mutex {
	t.Helper()
	q, err := deltafifo.NewMutex(opts)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

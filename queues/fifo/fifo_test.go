package fifo_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/queues/fifo"
)

// The FIFO contract is checked by fifotest.Run, which the lab runs over
// every FIFO it catalogues (internal/lab/registry); this file covers what
// is specific to the package's constructors.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestConstructorsRejectBadSettings: an invalid combination of options
// comes back as an error, never as a queue that misbehaves later.
func TestConstructorsRejectBadSettings(t *testing.T) {
	for name, build := range map[string]func() (any, error){
		"NewSharded with -1 shards":         func() (any, error) { return fifo.NewSharded(fifo.Options{Shards: -1}) },
		"NewRing with a negative ring size": func() (any, error) { return fifo.NewRing(fifo.Options{RingSize: -5}) },
		"NewMutex with shards":              func() (any, error) { return fifo.NewMutex(fifo.Options{Shards: 4}) },
		"NewSharded with a ring size":       func() (any, error) { return fifo.NewSharded(fifo.Options{RingSize: 64}) },
	} {
		if q, err := build(); err == nil {
			t.Errorf("%s succeeded: %v", name, q)
		}
	}
}

package workq

import (
	"errors"
	"fmt"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/internal/shard"
)

// Options configures NewMutex, NewSharded and NewRing, with the field names
// of client-go's TypedQueueConfig where they mean the same. The zero value
// is valid for each: no metrics, the default shard count, the default ring
// capacity, client-go's ShutDownWithDrain. A field the constructor does not use is an error, so a mistake
// is not silently ignored.
type Options struct {
	// Shards is the number of shards of a Sharded queue: 0 selects four
	// per GOMAXPROCS, other values must lie in [1, 65536] and are rounded
	// up to a power of two. Only NewSharded takes it.
	Shards int
	// Capacity is how many items one ring of a Ring queue holds (0 selects
	// 8192; others are rounded up to a power of two, at most 1<<24). A
	// longer backlog goes into further rings, allocated as needed and
	// dropped once drained. Only NewRing takes it.
	Capacity int

	// MetricsProvider, with Name, makes the queue report client-go's
	// workqueue metrics (depth, adds, queue latency, work duration,
	// unfinished work, longest running processor), so a controller moving
	// to this package keeps its dashboards. The queue then runs one
	// goroutine, which refreshes the unfinished-work gauges every 500 ms
	// and stops at shutdown. The metrics are updated under the queue's
	// locks, so they must be cheap and must not block or panic, as
	// client-go's Prometheus-backed ones are.
	MetricsProvider workqueue.MetricsProvider
	// Name names the queue's metrics; it must be set with MetricsProvider.
	Name string
	// Clock times the metrics (nil: the real clock); tests pass a
	// k8s.io/utils/clock/testing FakeClock.
	Clock clock.WithTicker

	// DrainQueued makes ShutDownWithDrain wait until nothing is queued as
	// well as nothing processing, the contract client-go documents ("waits
	// until all items in the queue have been processed"). Off (the
	// default), ShutDownWithDrain does what client-go's code does: it
	// returns as soon as no item is being processed, even with items still
	// queued (kubernetes/kubernetes#141079), and Get goes on handing those
	// out after it returned. The default is client-go's behaviour so that
	// a drop-in never blocks a shutdown that client-go's queue would have
	// finished (a controller whose workers have stopped, or that drains
	// before it starts them, would otherwise hang); turn it on where the
	// shutdown should process what was accepted, and keep workers calling
	// Get and Done until Get reports shutdown. A delaying or rate-limiting
	// layer drains as the queue it wraps does.
	DrainQueued bool
}

// check returns an error naming each field constructor does not take
// (uses lists those it does), and the metrics configuration, nil without a
// provider.
func (o Options) check(constructor string, usesShards, usesCapacity bool) (*metricsConfig, error) {
	var errs []error
	if usesShards {
		if _, err := shard.Validate(o.Shards); err != nil {
			errs = append(errs, fmt.Errorf("Shards: %w", err))
		}
	} else if o.Shards != 0 {
		errs = append(errs, fmt.Errorf("Shards is %d, but only a Sharded queue has shards", o.Shards))
	}
	if usesCapacity {
		if o.Capacity < 0 || o.Capacity > maxRingCapacity {
			errs = append(errs, fmt.Errorf("Capacity %d out of range [0, %d]", o.Capacity, maxRingCapacity))
		}
	} else if o.Capacity != 0 {
		errs = append(errs, fmt.Errorf("Capacity is %d, but only a Ring queue has a capacity", o.Capacity))
	}
	m, err := newMetricsConfig(o.MetricsProvider, o.Name, o.Clock)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("workq: %s: %w", constructor, err)
	}
	return m, nil
}

// newMetricsConfig checks a queue's metrics settings; no provider means no
// metrics (nil).
func newMetricsConfig(provider workqueue.MetricsProvider, name string, clk clock.WithTicker) (*metricsConfig, error) {
	switch {
	case provider == nil && name == "":
		return nil, nil
	case provider == nil || name == "":
		return nil, errors.New("MetricsProvider and Name go together: set both or neither")
	case clk == nil:
		clk = clock.RealClock{}
	}
	return &metricsConfig{provider: provider, name: name, clock: clk}, nil
}

// LayerOptions configures NewDelaying and NewRateLimiting. The zero value
// reads the real clock and counts no retries.
type LayerOptions struct {
	// Clock is what the layer reads deadlines from and sets its timer with
	// (nil: the real clock); tests pass a k8s.io/utils/clock/testing
	// FakeClock.
	Clock clock.Clock
	// MetricsProvider, with Name, makes the layer count every AddAfter
	// (and so every AddRateLimited) in the provider's retries metric, as
	// client-go's delaying queue does.
	MetricsProvider workqueue.MetricsProvider
	// Name names the retries metric; it must be set with MetricsProvider.
	Name string
}

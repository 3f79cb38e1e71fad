package workq

import (
	"errors"
	"fmt"
	"slices"

	"github.com/queuelab/queuelab/internal/shard"
)

// Option configures NewMutex, NewSharded or NewRing. An option that does not apply to
// the constructor it is passed to is an error, so a mistake is not silently
// ignored.
type Option func(*options) error

type options struct {
	shards   int // 0: shard.DefaultCount
	capacity int // 0: defaultRingCapacity
	metrics  *metricsConfig
	set      []string
}

// WithShards sets the number of shards of a Sharded queue: 0 selects
// shard.DefaultCount (four per GOMAXPROCS), other values must lie in
// [1, shard.MaxCount] and are rounded up to a power of two.
func WithShards(n int) Option {
	return func(o *options) error {
		o.set = append(o.set, "WithShards")
		v, err := shard.Validate(n)
		if err != nil {
			return fmt.Errorf("workq: WithShards: %w", err)
		}
		o.shards = v
		return nil
	}
}

// WithCapacity sets how many items one ring of a Ring queue holds (rounded up
// to a power of two). A longer backlog goes into further rings, allocated as
// needed and dropped once drained; see Ring.
func WithCapacity(n int) Option {
	return func(o *options) error {
		o.set = append(o.set, "WithCapacity")
		if n < 1 || n > maxRingCapacity {
			return fmt.Errorf("workq: WithCapacity: %d out of range [1, %d]", n, maxRingCapacity)
		}
		o.capacity = n
		return nil
	}
}

// applyOptions applies opts to o and gathers every error, nil options
// included.
func applyOptions[O any, F ~func(*O) error](constructor string, o *O, opts []F) []error {
	var errs []error
	for _, opt := range opts {
		if opt == nil {
			errs = append(errs, fmt.Errorf("workq: %s: nil option", constructor))
			continue
		}
		if err := opt(o); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// buildOptions applies opts and rejects any whose name is not in allowed.
func buildOptions(constructor string, opts []Option, allowed ...string) (options, error) {
	var o options
	errs := applyOptions(constructor, &o, opts)
	for _, name := range o.set {
		if !slices.Contains(allowed, name) {
			errs = append(errs, fmt.Errorf("workq: %s does not take option %s", constructor, name))
		}
	}
	return o, errors.Join(errs...)
}

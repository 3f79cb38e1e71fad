package workqtest

import (
	"time"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/workq"
)

// Option tunes a run of a suite; what the suite holds an implementation to
// comes from its declared workq.Guarantees, never from an Option.
type Option func(*config)

type config struct {
	order        guarantee.Order
	drainsQueued bool
	timeout      time.Duration
	// Differential checks: how many seeded operation sequences, starting
	// at which seed.
	diffRuns int
	seed     uint64
}

func newConfig(g workq.Guarantees, opts []Option) config {
	c := config{order: g.Order, drainsQueued: g.DrainsQueued, timeout: watchdog.DefaultTimeout, diffRuns: 20, seed: 1}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTimeout sets each property's deadlock watchdog (default
// watchdog.DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithDiffSeeds sets the differential check to run n seeded operation
// sequences with seeds first, first+1, … (default 20 from 1). A failure
// names its seed; WithDiffSeeds(seed, 1) replays just that one.
func WithDiffSeeds(first uint64, n int) Option {
	return func(c *config) { c.seed, c.diffRuns = first, n }
}

// diffSeeds returns the seeds the differential check runs.
func (c config) diffSeeds() []uint64 {
	seeds := make([]uint64, c.diffRuns)
	for i := range seeds {
		seeds[i] = c.seed + uint64(i)
	}
	return seeds
}

// Why properties are skipped, by the guarantee they need.
const (
	relaxedOrder = "[relaxed] the implementation declares no queue-wide hand-out order (Guarantees.Order)"
	relaxedDrain = "[relaxed] ShutDownWithDrain may return while items are still queued (Guarantees.DrainsQueued " +
		"false; client-go's bug kubernetes/kubernetes#141079)"
)

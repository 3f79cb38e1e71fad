package queuetest

import (
	"time"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/registry"
)

// Option adjusts a suite run to the guarantees the implementation declares.
type Option func(*config)

type config struct {
	order   registry.Order
	ext     bool
	timeout time.Duration
	// Differential checks (FIFO and DeltaFIFO suites): how many seeded
	// operation sequences, starting at which seed.
	diffRuns int
	seed     uint64
	known    map[string]string // property → why it is skipped
}

func newConfig(opts []Option) config {
	c := config{order: registry.OrderFIFO, timeout: watchdog.DefaultTimeout, diffRuns: 20, seed: 1}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithOrder declares the cross-item order the implementation keeps; order
// properties stronger than o are skipped. The default is registry.OrderFIFO.
func WithOrder(o registry.Order) Option { return func(c *config) { c.order = o } }

// WithExt declares that the implementation keeps the [ext] behaviours of
// SPEC.md; without it those properties are skipped (client-go drops them).
func WithExt() Option { return func(c *config) { c.ext = true } }

// WithTimeout sets each subtest's deadlock watchdog (default
// watchdog.DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithDiffSeeds sets the differential checks to run n seeded operation
// sequences with seeds first, first+1, … (default 20 from 1). A failure
// names its seed; WithDiffSeeds(seed, 1) replays just that one.
func WithDiffSeeds(first uint64, n int) Option {
	return func(c *config) { c.seed, c.diffRuns = first, n }
}

// WithKnownIssue declares a known bug of the implementation in property (a
// subtest name); the suite skips that property with reason. Suites detect
// client-go's own known bugs themselves; this is for wrappers around
// client-go's queues, which the suite cannot see through.
func WithKnownIssue(property, reason string) Option {
	return func(c *config) { c.knownIssue(property, reason) }
}

func (c *config) knownIssue(property, reason string) {
	if c.known == nil {
		c.known = make(map[string]string)
	}
	c.known[property] = reason
}

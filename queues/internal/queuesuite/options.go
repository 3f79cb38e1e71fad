package queuesuite

import (
	"time"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/queuelab/queuelab/internal/watchdog"
)

// Config is what a FIFO or DeltaFIFO suite run holds the implementation
// to, from its declared guarantees, and how it runs.
type Config struct {
	// Order is the declared cross-key Pop order.
	Order guarantee.Order
	// Ext: the implementation keeps the seed behaviours client-go dropped.
	Ext bool
	// Batch: the implementation is a cache.QueueWithBatch (DeltaFIFO only).
	Batch bool
	// Timeout is each property's deadlock watchdog.
	Timeout time.Duration
	// DiffRuns seeded operation sequences, from seed Seed, make the
	// differential check.
	DiffRuns int
	Seed     uint64
}

// skipUnlessExt is the Skip of an [ext] property.
func (c Config) skipUnlessExt() string {
	if c.Ext {
		return ""
	}
	return "[ext] seed behaviour client-go dropped; the implementation does not declare it (Guarantees.Ext)"
}

// skipUnlessBatch is the Skip of a PopBatch property.
func (c Config) skipUnlessBatch() string {
	if c.Batch {
		return ""
	}
	return "[ext] PopBatch: the implementation does not declare it (Guarantees.Batch; client-go's DeltaFIFO has none)"
}

// NewConfig is the Config of an implementation declaring order, ext and
// batch, with the default watchdog and 20 differential seeds from 1.
func NewConfig(order guarantee.Order, ext, batch bool) Config {
	return Config{Order: order, Ext: ext, Batch: batch, Timeout: watchdog.DefaultTimeout, DiffRuns: 20, Seed: 1}
}

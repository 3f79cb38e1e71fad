package queuesuite

import (
	"github.com/queuelab/queuelab/guarantee"
)

// Config is what a FIFO or DeltaFIFO suite run holds the implementation
// to, from its declared guarantees.
type Config struct {
	// Order is the declared cross-key Pop order.
	Order guarantee.Order
	// Ext: the implementation keeps the seed behaviours client-go dropped.
	Ext bool
	// Batch: the implementation is a cache.QueueWithBatch (DeltaFIFO only).
	Batch bool
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
// batch.
func NewConfig(order guarantee.Order, ext, batch bool) Config {
	return Config{Order: order, Ext: ext, Batch: batch}
}

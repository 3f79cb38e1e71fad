// Package metrics measures a load run: latency distributions (HdrHistogram,
// recorded per worker and merged, so recording takes no lock), runtime
// usage from runtime/metrics and /proc (heap, peak RSS, allocations, GC),
// periodic sampling of peaks, and optional pprof profiles.
package metrics

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// maxLatency is the largest latency a histogram records exactly; larger
// values are clamped (and still raise Max to the clamp).
const maxLatency = int64(10 * time.Minute)

// Latency is a latency histogram in nanoseconds with three significant
// digits. It is not safe for concurrent use: give each worker its own and
// Merge them.
type Latency struct{ h *hdrhistogram.Histogram }

// NewLatency returns an empty histogram.
func NewLatency() *Latency { return &Latency{h: hdrhistogram.New(1, maxLatency, 3)} }

// Record adds one latency sample.
func (l *Latency) Record(ns int64) {
	_ = l.h.RecordValue(min(max(ns, 1), maxLatency))
}

// Merge adds o's samples to l.
func (l *Latency) Merge(o *Latency) { l.h.Merge(o.h) }

// Quantiles summarizes a latency distribution in nanoseconds.
type Quantiles struct {
	Count                    int64
	P50, P90, P99, P999, Max int64
}

// Quantiles returns the distribution's summary.
func (l *Latency) Quantiles() Quantiles {
	return Quantiles{
		Count: l.h.TotalCount(),
		P50:   l.h.ValueAtQuantile(50),
		P90:   l.h.ValueAtQuantile(90),
		P99:   l.h.ValueAtQuantile(99),
		P999:  l.h.ValueAtQuantile(99.9),
		Max:   l.h.Max(),
	}
}

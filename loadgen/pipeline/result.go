package pipeline

import (
	"time"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// Result is one run's measurements and verdict.
type Result struct {
	Pipeline Kind   `json:"pipeline"`
	Impl     string `json:"impl"`
	Baseline bool   `json:"baseline"`
	Digest   string `json:"digest"`

	// Events is the number of stream changes emitted in the measured phase
	// (missed deletes excluded; tombstones included), Duration the time
	// from release until every one of them was reconciled (or applied, in
	// the store pipeline).
	metrics.Throughput
	// Sync is the initial List-to-everything-reconciled time (not part of
	// the measured phase).
	Sync time.Duration `json:"sync_ns"`
	// Converge is the time from the stream's end until the run drained:
	// what recovering from faults left behind (Options.Converge bounds it).
	Converge time.Duration `json:"converge_ns,omitempty"`
	// Latency runs from a change's emission to the end of the reconcile
	// that first observed it (workqueue, informer) or to its application
	// to the store (store pipeline: staleness); one sample per covering
	// reconcile, measured from the oldest change it covered.
	Latency metrics.Quantiles `json:"latency"`

	metrics.Peaks
	// RetainedPerObject is live heap growth at the end of the run divided
	// by the objects in the store: the objects themselves plus every
	// structure holding them.
	RetainedPerObject float64       `json:"retained_bytes_per_object"`
	AllocsPerEvent    float64       `json:"allocs_per_event"`
	BytesPerEvent     float64       `json:"bytes_per_event"`
	GCPause           time.Duration `json:"gc_pause_ns"`
	GCCPUFraction     float64       `json:"gc_cpu_fraction"`

	// ReconcilesPerEvent is reconciles in the measured phase per event
	// (workqueue and informer pipelines). Below 1, queues merged changes:
	// open loop, a queue that hands keys out sooner merges fewer and does
	// more reconciles for the same stream, which lowers its events/s.
	ReconcilesPerEvent float64 `json:"reconciles_per_event,omitempty"`

	// Store pipeline: reads and writes per second.
	ReadsPerSec  float64 `json:"reads_per_sec,omitempty"`
	WritesPerSec float64 `json:"writes_per_sec,omitempty"`

	// Footprint is set with Options.Footprint.
	Footprint

	Source watchsrc.Stats `json:"source"`
	account.Verdict
}

// OK reports whether the run was correct.
func (r *Result) OK() bool { return len(r.Violations) == 0 && !r.Stalled }

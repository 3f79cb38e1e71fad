package controller

import (
	"time"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// Result is one controller run's measurements and verdict.
type Result struct {
	Style    Style  `json:"style"`
	Impl     string `json:"impl"`
	Baseline bool   `json:"baseline"`
	Digest   string `json:"digest"`

	// Events is the number of changes the stream delivers (missed deletes
	// excluded, tombstones included); Duration the measured phase: from the
	// stream's release (from the informer's start, with Options.Restart)
	// until every change was reconciled.
	metrics.Throughput
	// Reconciles counts reconciles in the measured phase, failed ones
	// included: what a controller's workers did per second.
	Reconciles       int64   `json:"reconciles"`
	ReconcilesPerSec float64 `json:"reconciles_per_sec"`
	// Sync is the time from the informer's start until every object of
	// the initial list was reconciled once.
	Sync time.Duration `json:"sync_ns"`
	// Converge is the time from the stream's end (the last live write
	// accepted and any outage over, against an API server) until the run
	// drained: what recovering from faults left behind
	// (Options.Converge bounds it).
	Converge time.Duration `json:"converge_ns,omitempty"`
	// Outage is how long Options.Outage's Interrupt took (stop, down,
	// start) and WriteRetries how many writes it made the writers retry.
	Outage       time.Duration `json:"outage_ns,omitempty"`
	WriteRetries int64         `json:"write_retries,omitempty"`
	// Latency runs from a watch event's emission to the end of the first
	// successful reconcile that observed it (initial-list objects
	// excluded: their time is Sync).
	Latency metrics.Quantiles `json:"latency"`
	// Staleness runs from a watch event's emission to the informer's
	// notification of it, after its store write: how far the listers lag.
	Staleness metrics.Quantiles `json:"staleness"`

	metrics.Peaks
	// HeapPerObject is the live heap growth at the end divided by the
	// objects in the informer's store.
	HeapPerObject float64 `json:"heap_bytes_per_object"`
	// CPUPerReconcile is the process's user+system CPU in the measured
	// phase per reconcile: the whole controller's cost (informer, queue,
	// reads, GC), not only the reconcile function's.
	CPUPerReconcile time.Duration `json:"cpu_per_reconcile_ns"`
	GCCPUFraction   float64       `json:"gc_cpu_fraction"`

	Source watchsrc.Stats `json:"source"`
	account.Verdict
}

// OK reports whether the run was correct: nothing lost, duplicated,
// reconciled concurrently or read stale, and no stall.
func (r *Result) OK() bool { return len(r.Violations) == 0 && !r.Stalled && r.ProcessErrors == 0 }

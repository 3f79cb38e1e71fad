package pipeline

import (
	"math"
	"time"

	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// Options configure a run. Field names follow the `queuelab run` flags;
// Validate names the flag that is wrong.
type Options struct {
	// Schedule is the offered load.
	Schedule gen.Schedule
	// Workers reconcile keys (workqueue and informer pipelines).
	Workers int
	// Producers add keys (workqueue pipeline).
	Producers int
	// Readers read the store (store pipeline), with ReadMix's operations.
	Readers int
	ReadMix ReadMix
	// ReconcileCost is CPU work spent per reconcile (a busy loop).
	ReconcileCost time.Duration
	// ErrorRate is the fraction of reconciles that fail and are retried
	// with AddRateLimited.
	ErrorRate float64
	// Stall ends a run that made no progress for this long; whatever is
	// still pending is then reported as violations.
	Stall time.Duration
	// Layer wraps the base workqueue with rate limiting; nil uses
	// DefaultLayer.
	Layer Layer
	// Profiles to write for the measured phase.
	Profiles metrics.Profiles
	// Progress, if set, is called about every 10ms with the number of
	// stream events emitted so far.
	Progress func(emitted int64)
	// Faults are injected into the informer and store pipelines' watch
	// (watchsrc.Faults); Handlers make the informer pipeline's handlers
	// panic and block (HandlerFaults).
	Faults   watchsrc.Faults
	Handlers HandlerFaults
	// Converge, if > 0, is the stated bound on the time from the stream's
	// end until the run is drained: a run that takes longer fails with
	// account.Unconverged. Fault scenarios state one; recovering from a
	// fault must not leave work behind for long.
	Converge time.Duration
	// Footprint measures what the informer costs at scale (store
	// pipeline only): the time to synced, the heap its own structures
	// hold per object, and the heap and staleness within relists
	// (Result.Footprint). It costs two runtime.GCs and one rebuild of the
	// initial list's objects between the sync and the measured phase.
	Footprint bool
}

// ReadMix is the store pipeline's read operations as fractions summing to 1.
type ReadMix struct {
	Get, ByIndex, List float64
}

// DefaultOptions: four workers, two producers, eight readers doing mostly
// Gets, 1% reconcile errors, no reconcile cost (the plumbing is what is
// measured), open-loop load.
func DefaultOptions() Options {
	return Options{
		Workers:   4,
		Producers: 2,
		Readers:   8,
		ReadMix:   ReadMix{Get: 0.9, ByIndex: 0.09, List: 0.01},
		ErrorRate: 0.01,
		Stall:     10 * time.Second,
	}
}

// Validate checks the options with a *gen.FieldError naming the flag; the
// fields a whole-controller run has too are checked by the same rule
// (gen.Workers).
func (o Options) Validate() error {
	m := o.ReadMix
	switch {
	case o.Producers <= 0:
		return gen.Fieldf("producers", "must be > 0, got %d", o.Producers)
	case o.Readers < 0:
		return gen.Fieldf("readers", "must be >= 0, got %d", o.Readers)
	case m.Get < 0 || m.ByIndex < 0 || m.List < 0 || math.Abs(m.Get+m.ByIndex+m.List-1) > 1e-9:
		return gen.Fieldf("read-mix", "get+byindex+list must be >= 0 and sum to 1, got %g+%g+%g", m.Get, m.ByIndex, m.List)
	}
	if err := o.Faults.Validate(); err != nil {
		return err
	}
	if err := o.Handlers.Validate(); err != nil {
		return err
	}
	if o.Converge < 0 {
		return gen.Fieldf("converge", "must be >= 0 (0 = no bound), got %v", o.Converge)
	}
	return gen.Workers{Workers: o.Workers, ReconcileCost: o.ReconcileCost, ErrorRate: o.ErrorRate, Stall: o.Stall, Schedule: o.Schedule}.Validate()
}

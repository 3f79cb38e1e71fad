package controller

import (
	"time"

	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/handlerfault"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// Options configure a controller run. Field names follow the `queuelab
// run` flags; Validate names the flag that is wrong.
type Options struct {
	// Workers is the number of concurrent reconciles (client-go's worker
	// goroutines, controller-runtime's MaxConcurrentReconciles).
	Workers int
	// Lists is how many lister Lists each reconcile does: its namespace's
	// Pods with its app label (ByIndex on the namespace index, then a label
	// match), as a ReplicaSet or Job controller lists its pods.
	Lists int
	// ReconcileCost is CPU each reconcile burns after reading.
	ReconcileCost time.Duration
	// ReconcileSleep is how long each reconcile then waits without CPU,
	// standing in for a call to the API server or a cloud API: an I/O-bound
	// reconcile holds its worker and its key but leaves the CPU to others.
	ReconcileSleep time.Duration
	// Controllers is how many controllers run in the process, each with its
	// own handler registration, queue, Workers workers and books, all on
	// one shared informer, as kube-controller-manager's controllers share
	// one informer factory (0 or 1: one controller). Every controller's
	// ledger is checked. With more than one, the stream must not miss
	// deletes: the relist that reveals one books it in the source's ledger
	// alone.
	Controllers int
	// ErrorRate is the fraction of reconciles that fail and are requeued
	// rate-limited (forever: a controller never drops a key).
	ErrorRate float64
	// Schedule is the offered load of the watch stream.
	Schedule gen.Schedule
	// Restart releases the stream together with the initial list, as when a
	// controller restarts into a busy cluster: live changes arrive while
	// the initial objects are still being reconciled.
	Restart bool
	// Stall ends a run that made no progress for this long.
	Stall time.Duration
	// Profiles to write for the measured phase, as a pipeline run writes
	// them (--cpuprofile and the others).
	Profiles metrics.Profiles
	// Faults are injected into the offline watch source (watchsrc.Inject).
	Faults watchsrc.Faults
	// Handlers make the controller's event handler panic at seeded
	// notifications and register a second handler that blocks at others
	// (handlerfault), in either style; one controller, offline only.
	Handlers handlerfault.Faults
	// Converge, if > 0, is the stated bound on the time from the stream's
	// end until the run is drained: a run that takes longer fails with
	// account.Unconverged, as a pipeline run does (fault scenarios state
	// one: recovering from a fault must not leave work behind for long).
	Converge time.Duration
	// Outage, for RunAPI only, takes the API server away once mid-stream.
	Outage *Outage
}

// DefaultOptions: 4 workers, one List per reconcile, 1% errors, open loop.
func DefaultOptions() Options {
	return Options{Workers: 4, Lists: 1, ErrorRate: 0.01, Stall: 15 * time.Second}
}

// Validate checks the options with a *gen.FieldError naming the flag; the
// fields a pipeline run has too are checked by the same rule (gen.Workers).
func (o Options) Validate() error {
	if o.Lists < 0 {
		return gen.Fieldf("lists", "must be >= 0, got %d", o.Lists)
	}
	if o.ReconcileSleep < 0 {
		return gen.Fieldf("reconcile-sleep", "must be >= 0, got %v", o.ReconcileSleep)
	}
	if o.Controllers < 0 {
		return gen.Fieldf("controllers", "must be >= 0, got %d", o.Controllers)
	}
	if err := o.Faults.Validate(); err != nil {
		return err
	}
	if err := o.Handlers.Validate(); err != nil {
		return err
	}
	if o.Handlers.Any() && o.Controllers > 1 {
		return gen.Fieldf("controllers", "handler faults need one controller, got %d", o.Controllers)
	}
	if o.Converge < 0 {
		return gen.Fieldf("converge", "must be >= 0 (0 = no bound), got %v", o.Converge)
	}
	if err := o.Outage.validate(); err != nil {
		return err
	}
	return gen.Workers{Workers: o.Workers, ReconcileCost: o.ReconcileCost, ErrorRate: o.ErrorRate, Stall: o.Stall, Schedule: o.Schedule}.Validate()
}

package gen

import "time"

// Workers is the part of a run's options that every consumer of a stream
// shares, the load pipelines and the whole-controller runs alike: how many
// reconcile, what a reconcile costs and how often it fails, when a run
// counts as stalled and the offered load. Both validate it here, so the
// same flag is checked by the same rule with the same message.
type Workers struct {
	Workers       int
	ReconcileCost time.Duration
	ErrorRate     float64
	Stall         time.Duration
	Schedule      Schedule
}

// Validate checks the fields with a *FieldError naming the flag.
func (w Workers) Validate() error {
	switch {
	case w.Workers <= 0:
		return Fieldf("workers", "must be > 0, got %d", w.Workers)
	case w.ReconcileCost < 0:
		return Fieldf("reconcile-cost", "must be >= 0, got %v", w.ReconcileCost)
	case w.ErrorRate < 0 || w.ErrorRate >= 1:
		return Fieldf("error-rate", "must be in [0, 1), got %g", w.ErrorRate)
	case w.Stall <= 0:
		return Fieldf("stall", "must be > 0, got %v", w.Stall)
	}
	return w.Schedule.Validate()
}

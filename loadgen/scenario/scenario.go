// Package scenario names the load scenarios `queuelab run` offers. Each is
// a stream configuration plus pipeline options; every field can still be
// overridden by a flag.
package scenario

import (
	"fmt"
	"time"

	"github.com/queuelab/queuelab/loadgen/controller"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/internal/named"
	"github.com/queuelab/queuelab/loadgen/pipeline"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// Scenario is a named workload.
type Scenario struct {
	Name string
	Doc  string
	Gen  gen.Config
	Opts pipeline.Options
	// Pipelines run by default.
	Pipelines []pipeline.Kind
	// Stacks is the default --impl selection per pipeline (absent: "all").
	Stacks map[pipeline.Kind]string
	// HalfLoad offers half the baseline's open-loop throughput as a fixed
	// rate, measured by a calibration run first (unless --rate is given).
	HalfLoad bool
	// Controller, when set, makes this a whole-controller scenario
	// (package loadgen/controller) instead of a pipeline one.
	Controller *Controller
}

// Controller is what a controller scenario adds to the stream: Opts
// supplies workers, reconcile cost, error rate, schedule and stall (so
// the same flags override them), this the rest.
type Controller struct {
	// Lists is lister Lists per reconcile; Restart releases the stream with
	// the initial list.
	Lists   int
	Restart bool
	// Controllers and ReconcileSleep are controller.Options': several
	// controllers on one informer, I/O-bound reconciles.
	Controllers    int
	ReconcileSleep time.Duration
	// Stacks is the default --impl selection per style.
	Stacks map[controller.Style]string
}

// Options is the controller run's options for pipeline options o.
func (c *Controller) Options(o pipeline.Options) controller.Options {
	return controller.Options{Workers: o.Workers, Lists: c.Lists, ReconcileCost: o.ReconcileCost,
		ErrorRate: o.ErrorRate, Schedule: o.Schedule, Restart: c.Restart, Stall: o.Stall, Faults: o.Faults,
		Controllers: c.Controllers, ReconcileSleep: c.ReconcileSleep, Handlers: o.Handlers, Converge: o.Converge}
}

// All lists the scenarios, default first.
func All() []Scenario {
	def := gen.Defaults()
	// client-go's shipped informer waits out a backoff before every
	// relist (0.8 s, doubling while relists come within 2 minutes):
	// wall time a compressed stream cannot afford 6 times per run. Every
	// 100 s simulated is twice per default run, for every stack alike.
	def.RelistEvery = 100 * time.Second
	opts := pipeline.DefaultOptions()

	storm := def
	storm.Objects, storm.Namespaces = 100_000, 1000
	storm.Events = 200_000
	storm.RelistEvery = 10 * time.Second
	storm.Missed = 0.2

	// Staleness is a latency: it is measured at a fixed offered load (the
	// pod churn of a busy 40k-pod cluster), not open loop, where it would
	// only be the backlog. Not half client-go's open-loop rate either:
	// open loop, client-go's writer waits only for the few listers it let
	// in since its last write, while a trickle of events finds every
	// lister mid-scan (some preempted), so it sustains far less than half
	// its open-loop rate. 2000 events take 20 s per stack that keeps up.
	contention := def
	contention.Objects, contention.Namespaces = 40_000, 400
	contention.Events = 2000
	contOpts := opts
	contOpts.Schedule = gen.Schedule{Rate: 100}
	contOpts.Readers = 10
	contOpts.ReadMix = pipeline.ReadMix{Get: 0.5, ByIndex: 0.4, List: 0.1}

	// The informer scenarios run client-go's shipped informer and the
	// lab's drop-in over the mutex store and client-go's RealFIFO (the
	// drop-in minus its fan-out and its store's locking) and over a
	// lock-free store for read-heavy controllers under the ring work queue. Any other stack is one
	// --impl away; "all" runs every name.
	informerStacks := map[pipeline.Kind]string{pipeline.Informer: "clientgo,mutex+clientgo+clientgo,lockfree+clientgo+ring"}

	smoke := def
	smoke.Objects, smoke.Namespaces, smoke.Labels, smoke.Events = 2000, 20, 50, 10_000
	smoke.RelistEvery, smoke.ResyncEvery, smoke.DisconnectEvery = 4*time.Second, 3*time.Second, 2*time.Second

	return append([]Scenario{
		{Name: "default", Doc: "busy controller: 50k pods, 500 namespaces, Zipf 1.1, 5% deletes, relist every 100 s simulated, open loop",
			Gen: def, Opts: opts, Pipelines: []pipeline.Kind{pipeline.Informer, pipeline.WorkQueue}, Stacks: informerStacks},
		{Name: "relist-storm", Doc: "100k pods, a relist every 10 s simulated with 20% of deletes missed (tombstones): memory under Replace",
			Gen: storm, Opts: opts, Pipelines: []pipeline.Kind{pipeline.Informer}, Stacks: informerStacks},
		{Name: "half-load", Doc: "the default stream at a fixed offered load of half client-go's open-loop maximum: latency",
			Gen: def, Opts: opts, Pipelines: []pipeline.Kind{pipeline.Informer}, HalfLoad: true, Stacks: informerStacks},
		{Name: "store-contention", Doc: "40k pods, 10 listers doing Get/ByIndex/List scans against the informer's writer (PopBatch + transactions where supported), 100 events/s: staleness (issue 7); --rate 0 measures the writer's capacity",
			Gen: contention, Opts: contOpts, Pipelines: []pipeline.Kind{pipeline.Store},
			Stacks: map[pipeline.Kind]string{pipeline.Store: "clientgo,mutex+clientgo,lockfree+clientgo,lockfree+deltafifo-mutex"}},
		controllerKCM(), controllerRestart(), controllerRelist(), controllerWide(), controllerPlain(), controllerMany(), controllerManyIO(),
		{Name: "smoke", Doc: "2k pods, 10k events with relists, resyncs and disconnects: seconds, for CI and benchmarks",
			Gen: smoke, Opts: opts, Pipelines: pipeline.Kinds},
		faultsWatch(informerStacks), faultsHandlers(informerStacks), controllerFaults(),
		controllerFaultsHandlers(),
	}, scaleScenarios()...)
}

// watchFaults is the faults-watch schedule: four closes and one of each
// error, three backoffs (0.8 s, 1.6 s, 3.2 s in client-go's Reflector).
func watchFaults() watchsrc.Faults {
	return watchsrc.Faults{Close: 4, Gone: 1, Refused: 1, Internal: 1}
}

// controllerFaults is faults-watch under whole controllers: the same
// stream and schedule, every controller stack. Their measured time
// includes the Reflector's backoffs (a controller run does not pause
// over them), so it is a ledger check, not a measurement.
func controllerFaults() Scenario {
	o := controllerOpts(4, 0)
	o.Faults = watchFaults()
	return controllerScenario("controller-faults",
		"whole controllers under the faults-watch schedule (4 closes, a 410 Gone, a 429, a 500): 2k pods, 8k events open loop; every ledger clean",
		faultGen(), o, Controller{Lists: 1})
}

// faultGen is the fault scenarios' stream: 2k pods, 8k events, resyncs and
// no relist or missed delete of its own, so the only waits are the
// injected faults' (see watchsrc.Faults).
func faultGen() gen.Config {
	g := gen.Defaults()
	g.Objects, g.Namespaces, g.Labels, g.Events = 2000, 20, 50, 8000
	g.RelistEvery, g.Missed, g.ResyncEvery = 0, 0, 2*time.Second
	return g
}

// faultConverge is the fault scenarios' stated convergence bound: from
// the stream's end until everything is reconciled. The faults' own waits
// (backoffs, a panicked listener's second, a blocked handler's sleep)
// come before the stream's end or are a few seconds at most; a run that
// takes longer left work behind.
const faultConverge = 15 * time.Second

// faultsWatch drops, expires and fails the watch under the informer:
// four mid-stream closes, a "410 Gone", a refused (429) watch and a 500
// mid-stream. client-go's Reflector backs off 0.8 s, 1.6 s, 3.2 s for the
// three errors (paused over, not measured), so a stack costs seconds.
func faultsWatch(stacks map[pipeline.Kind]string) Scenario {
	o := pipeline.DefaultOptions()
	o.Faults = watchFaults()
	o.Converge = faultConverge
	return Scenario{Name: "faults-watch",
		Doc: "2k pods, 8k events open loop, the watch closed 4 times mid-stream, one 410 Gone (relist), one 429 refused watch and one 500 mid-stream (backoff): every ledger clean, drained within 15 s of the stream's end",
		Gen: faultGen(), Opts: o, Pipelines: []pipeline.Kind{pipeline.Informer}, Stacks: stacks}
}

// faultsHandlers makes the informer's handlers misbehave while the stream
// flows at 2000 events/s (4 s): the enqueuing handler panics on 3
// notifications (the run turns utilruntime.ReallyCrash off; client-go
// then skips each and pauses that handler a second) and a second handler
// blocks 2 s on 2, during which the enqueuer must keep being notified.
func faultsHandlers(stacks map[pipeline.Kind]string) Scenario {
	o := pipeline.DefaultOptions()
	o.Schedule = gen.Schedule{Rate: 2000}
	o.Handlers = pipeline.HandlerFaults{Panics: 3, Blocks: 2, Block: 2 * time.Second}
	o.Converge = faultConverge
	return Scenario{Name: "faults-handlers",
		Doc: "2k pods, 8k events at 2000/s, the enqueuing handler panicking on 3 notifications (skipped, as the informer's panic policy allows) and a second handler blocking 2 s on 2: the others keep flowing, every ledger clean, drained within 15 s of the stream's end",
		Gen: faultGen(), Opts: o, Pipelines: []pipeline.Kind{pipeline.Informer}, Stacks: stacks}
}

// Names lists the scenarios' names, default first.
func Names() []string { return named.Names(All(), scenarioName) }

// Lookup returns the scenario called name, or an error listing the names.
func Lookup(name string) (Scenario, error) {
	s, err := named.Lookup("scenario", All(), scenarioName, name)
	if err != nil {
		return Scenario{}, fmt.Errorf("--scenario: %w", err)
	}
	return s, nil
}

func scenarioName(s Scenario) string { return s.Name }

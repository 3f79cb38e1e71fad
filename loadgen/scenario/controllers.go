package scenario

import (
	"time"

	"github.com/queuelab/queuelab/loadgen/controller"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/handlerfault"
	"github.com/queuelab/queuelab/loadgen/pipeline"
)

// controllerStacks is what every controller scenario runs: each style's
// baseline and the drop-in informer over the lock-free store and the mutex
// DeltaFIFO with the lab's ring queue; controller-runtime also with its own priority
// queue, which keeps its priorities.
func controllerStacks() map[controller.Style]string {
	return map[controller.Style]string{
		controller.ClientGo:    "baseline,lockfree+deltafifo-mutex/ring",
		controller.CtrlRuntime: "baseline,lockfree+deltafifo-mutex/priorityqueue,lockfree+deltafifo-mutex/ring",
	}
}

// controllerGen is a controller scenario's stream: no relists, resyncs or
// disconnects unless the scenario is about them.
func controllerGen(objects, namespaces, events int) gen.Config {
	g := gen.Defaults()
	g.Objects, g.Namespaces, g.Events = objects, namespaces, events
	g.RelistEvery, g.Missed = 0, 0
	return g
}

func controllerOpts(workers int, rate float64) pipeline.Options {
	o := pipeline.DefaultOptions()
	o.Workers, o.Schedule = workers, gen.Schedule{Rate: rate}
	o.Stall = 20 * time.Second
	return o
}

// controllerScenario is a whole-controller scenario over every controller
// stack (controllerStacks), so the scenarios differ only in what they are
// about: their stream, their load and their controller's shape.
func controllerScenario(name, doc string, g gen.Config, o pipeline.Options, c Controller) Scenario {
	c.Stacks = controllerStacks()
	return Scenario{Name: name, Doc: doc, Gen: g, Opts: o, Controller: &c}
}

// controllerKCM is kube-controller-manager's shape (kubernetes#130767):
// 50k pods in 50 namespaces, 16 workers each listing its pod's
// namespace by label per reconcile, a steady 2000 updates/s.
func controllerKCM() Scenario {
	return controllerScenario("controller-kcm",
		"whole controllers: 5k pods, 1000 per namespace, 16 workers each listing its namespace by label per reconcile, steady 1000 events/s",
		controllerGen(5000, 5, 2000), controllerOpts(16, 1000), Controller{Lists: 1})
}

// controllerRestart is a restart into a busy cluster: the initial list of
// 5k pods (1000 per namespace, listed per reconcile) and live updates at
// 500/s from the same moment. Latency is
// the live changes'; time to synced the initial list's.
func controllerRestart() Scenario {
	return controllerScenario("controller-restart",
		"whole controllers restarting: initial list of 5k pods while 500 live events/s arrive; live event→reconcile and time to synced",
		controllerGen(5000, 5, 2000), controllerOpts(16, 500), Controller{Lists: 1, Restart: true})
}

// controllerRelist is a relist storm: a relist every 2 s simulated with
// 20% of deletes missed, so every relist replaces all 5k objects and
// notifies each one again.
func controllerRelist() Scenario {
	g := controllerGen(5000, 50, 6000)
	g.RelistEvery, g.Missed = 2*time.Second, 0.2
	return controllerScenario("controller-relist",
		"whole controllers under relist storms: 5k pods, a relist every 2 s simulated (2 in the run), 20% of deletes missed, open loop",
		g, controllerOpts(4, 0), Controller{Lists: 1})
}

// controllerWide is many workers with short reconciles: the queue is the
// shared structure every reconcile passes through twice.
func controllerWide() Scenario {
	return controllerScenario("controller-wide",
		"whole controllers with 64 workers and short reconciles (one Get, no List): 2k pods, 20k events open loop",
		controllerGen(2000, 20, 20_000), controllerOpts(64, 0), Controller{Lists: 0})
}

// controllerPlain is where the plumbing should not matter: moderate load,
// expensive reconciles.
func controllerPlain() Scenario {
	o := controllerOpts(4, 200)
	o.ReconcileCost = time.Millisecond
	return controllerScenario("controller-plain",
		"whole controllers where the plumbing should not matter: 1k pods, 200 events/s, 1 ms of CPU per reconcile, 4 workers",
		controllerGen(1000, 10, 600), o, Controller{Lists: 1})
}

// manyControllers is how many controllers controller-many runs in one
// process, each with manyWorkers workers: the order of
// kube-controller-manager, whose controllers share one informer factory.
const manyControllers, manyWorkers = 20, 4

// controllerMany is many controllers in one process sharing one informer,
// each reconcile burning CPU: every event reaches every controller's
// handler and queue, and 80 workers compete for the CPUs.
func controllerMany() Scenario {
	o := controllerOpts(manyWorkers, 200)
	o.ReconcileCost = 50 * time.Microsecond
	return controllerScenario("controller-many",
		"20 controllers × 4 workers in one process on one shared informer (kube-controller-manager's shape): 2k pods, 200 events/s each reaching all 20, 50 µs of CPU per reconcile",
		controllerGen(2000, 20, 3000), o, Controller{Lists: 1, Controllers: manyControllers})
}

// controllerManyIO is controllerMany with I/O-bound reconciles: each waits
// 2 ms without CPU (a call to the API server), so most workers are parked
// in a reconcile rather than in the queue's Get.
func controllerManyIO() Scenario {
	return controllerScenario("controller-many-io",
		"controller-many with I/O-bound reconciles: 20 controllers × 4 workers on one shared informer, 2k pods, 200 events/s, each reconcile waits 2 ms without CPU",
		controllerGen(2000, 20, 3000), controllerOpts(manyWorkers, 200),
		Controller{Lists: 1, Controllers: manyControllers, ReconcileSleep: 2 * time.Millisecond})
}

// controllerFaultsHandlers is faults-handlers under whole controllers, in
// both styles over every controller stack: the controller's event handler
// panics on 3 seeded notifications (skipped by the informer's panic
// policy, forgiven by the ledger for that state only) and a second
// registration on the shared informer blocks 2 s on 2 while the stream
// flows at 2000 events/s; every ledger clean, drained within
// faultConverge of the stream's end.
func controllerFaultsHandlers() Scenario {
	o := controllerOpts(4, 2000)
	o.Handlers = handlerfault.Faults{Panics: 3, Blocks: 2, Block: 2 * time.Second}
	o.Converge = faultConverge
	return controllerScenario("controller-faults-handlers",
		"whole controllers whose event handler panics on 3 notifications (skipped, as the informer's panic policy allows) while a second registration blocks 2 s on 2: 2k pods, 8k events at 2000/s; every ledger clean, drained within 15 s of the stream's end",
		faultGen(), o, Controller{Lists: 1})
}

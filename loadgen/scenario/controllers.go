package scenario

import (
	"time"

	"github.com/queuelab/queuelab/loadgen/controller"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/pipeline"
)

// controllerStacks is what every controller scenario runs: each style's
// baseline and the lab informer (lock-free store, mutex DeltaFIFO) with
// the lab's ring queue; controller-runtime also with its own priority
// queue, which keeps its priorities.
func controllerStacks() map[controller.Style]string {
	return map[controller.Style]string{
		controller.ClientGo:    "baseline,lockfree+mutex/ring",
		controller.CtrlRuntime: "baseline,lockfree+mutex/priorityqueue,lockfree+mutex/ring",
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

// controllerKCM is kube-controller-manager's shape (kubernetes#130767):
// 50k pods in 50 namespaces, 16 workers each listing its pod's
// namespace by label per reconcile, a steady 2000 updates/s.
func controllerKCM() Scenario {
	return Scenario{Name: "controller-kcm",
		Doc:        "whole controllers: 5k pods, 1000 per namespace, 16 workers each listing its namespace by label per reconcile, steady 1000 events/s",
		Gen:        controllerGen(5000, 5, 2000),
		Opts:       controllerOpts(16, 1000),
		Controller: &Controller{Lists: 1, Stacks: controllerStacks()}}
}

// controllerRestart is a restart into a busy cluster: the initial list of
// 5k pods (1000 per namespace, listed per reconcile) and live updates at
// 500/s from the same moment. Latency is
// the live changes'; time to synced the initial list's.
func controllerRestart() Scenario {
	return Scenario{Name: "controller-restart",
		Doc:        "whole controllers restarting: initial list of 5k pods while 500 live events/s arrive; live event→reconcile and time to synced",
		Gen:        controllerGen(5000, 5, 2000),
		Opts:       controllerOpts(16, 500),
		Controller: &Controller{Lists: 1, Restart: true, Stacks: controllerStacks()}}
}

// controllerRelist is a relist storm: a relist every 2 s simulated with
// 20% of deletes missed, so every relist replaces all 5k objects and
// notifies each one again.
func controllerRelist() Scenario {
	g := controllerGen(5000, 50, 6000)
	g.RelistEvery, g.Missed = 2*time.Second, 0.2
	return Scenario{Name: "controller-relist",
		Doc:        "whole controllers under relist storms: 5k pods, a relist every 2 s simulated (2 in the run), 20% of deletes missed, open loop",
		Gen:        g,
		Opts:       controllerOpts(4, 0),
		Controller: &Controller{Lists: 1, Stacks: controllerStacks()}}
}

// controllerWide is many workers with short reconciles: the queue is the
// shared structure every reconcile passes through twice.
func controllerWide() Scenario {
	return Scenario{Name: "controller-wide",
		Doc:        "whole controllers with 64 workers and short reconciles (one Get, no List): 2k pods, 20k events open loop",
		Gen:        controllerGen(2000, 20, 20_000),
		Opts:       controllerOpts(64, 0),
		Controller: &Controller{Lists: 0, Stacks: controllerStacks()}}
}

// controllerPlain is where the plumbing should not matter: moderate load,
// expensive reconciles.
func controllerPlain() Scenario {
	o := controllerOpts(4, 200)
	o.ReconcileCost = time.Millisecond
	return Scenario{Name: "controller-plain",
		Doc:        "whole controllers where the plumbing should not matter: 1k pods, 200 events/s, 1 ms of CPU per reconcile, 4 workers",
		Gen:        controllerGen(1000, 10, 600),
		Opts:       o,
		Controller: &Controller{Lists: 1, Stacks: controllerStacks()}}
}

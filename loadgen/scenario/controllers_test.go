package scenario

import (
	"context"
	"testing"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/controller"
	"github.com/queuelab/queuelab/loadgen/gen"
)

// TestControllerManyIsLedgerClean runs the controller-many scenarios as
// configured (20 controllers × 4 workers on one informer) over a tiny
// stream, once per style: client-go's style CPU-bound on its stock stack,
// controller-runtime's I/O-bound (controller-many-io) on a lab stack. Every
// controller's books must be clean, and every live change must have reached
// every controller: each reconciles each changed key at least once in the
// measured phase.
func TestControllerManyIsLedgerClean(t *testing.T) {
	runs := []struct {
		scenario string
		style    controller.Style
		stack    string
	}{
		{"controller-many", controller.ClientGo, "baseline"},
		{"controller-many-io", controller.CtrlRuntime, "informer-lockfree/pq-lockfree"},
	}
	for _, tc := range runs {
		stacks, err := controller.ParseStacks(tc.style, tc.stack)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tc.scenario+"/"+string(tc.style)+"/impl="+stacks[0].Name(), func(t *testing.T) {
			sc, err := Lookup(tc.scenario)
			if err != nil {
				t.Fatal(err)
			}
			sc.Gen.Objects, sc.Gen.Namespaces, sc.Gen.Events = 100, 2, 300
			s, err := gen.Generate(sc.Gen)
			if err != nil {
				t.Fatal(err)
			}
			changed := map[uint32]bool{}
			for _, e := range s.Events {
				if e.Kind.IsObject() {
					changed[e.Key] = true
				}
			}
			o := sc.Controller.Options(sc.Opts)
			o.Schedule = gen.Schedule{} // open loop: as fast as the controllers go
			if o.Controllers != manyControllers || o.Workers != manyWorkers {
				t.Fatalf("%d controllers × %d workers, want %d × %d", o.Controllers, o.Workers, manyControllers, manyWorkers)
			}
			res, err := controller.Run(context.Background(), tc.style, stacks[0], s, gen.NewObjects(s), o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK() {
				t.Fatalf("run failed: stalled=%v process errors=%d\n%s", res.Stalled, res.ProcessErrors, account.Summary(res.Violations))
			}
			if want := int64(o.Controllers * len(changed)); res.Reconciles < want {
				t.Fatalf("%d reconciles for %d changed keys in %d controllers, want at least %d", res.Reconciles, len(changed), o.Controllers, want)
			}
		})
	}
}

// TestControllerFaultsHandlersWiring: the scenario's handler faults and
// convergence bound reach the controller run's options.
func TestControllerFaultsHandlersWiring(t *testing.T) {
	sc, err := Lookup("controller-faults-handlers")
	if err != nil {
		t.Fatal(err)
	}
	o := sc.Controller.Options(sc.Opts)
	if o.Handlers.Panics != 3 || o.Handlers.Blocks != 2 || o.Converge != faultConverge {
		t.Fatalf("handlers %+v, converge %v: want 3 panics, 2 blocks, bound %v", o.Handlers, o.Converge, faultConverge)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
}

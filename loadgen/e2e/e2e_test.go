//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/queuelab/queuelab/loadgen/controller"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/scenario"
)

// env reads a setting, with a default.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// TestControllersAgainstAPIServer runs E2E_SCENARIOS (default: every
// controller scenario an API server can replay) E2E_COUNT rounds over
// their stacks, scaled to E2E_OBJECTS objects and E2E_EVENTS events (the
// writers go through HTTP and etcd), prints the same table as the
// synthetic runs and, with E2E_BENCH set, writes benchfmt to that file.
// Every run must be ledger-clean.
func TestControllersAgainstAPIServer(t *testing.T) {
	names := strings.Split(env("E2E_SCENARIOS", "controller-kcm,controller-restart,controller-wide,controller-plain"), ",")
	count, err := strconv.Atoi(env("E2E_COUNT", "1"))
	if err != nil || count < 1 {
		t.Fatalf("E2E_COUNT: want a positive integer, got %q", os.Getenv("E2E_COUNT"))
	}
	objects, err1 := strconv.Atoi(env("E2E_OBJECTS", "1000"))
	events, err2 := strconv.Atoi(env("E2E_EVENTS", "2000"))
	if err1 != nil || err2 != nil {
		t.Fatal("E2E_OBJECTS and E2E_EVENTS must be integers")
	}

	testEnv := &envtest.Environment{}
	cfg, err := testEnv.Start()
	if err != nil {
		t.Fatalf("envtest: %v (KUBEBUILDER_ASSETS=%q; `make e2e` builds them)", err, os.Getenv("KUBEBUILDER_ASSETS"))
	}
	t.Cleanup(func() {
		if err := testEnv.Stop(); err != nil {
			t.Errorf("envtest stop: %v", err)
		}
	})
	cfg.QPS, cfg.Burst = 20_000, 20_000
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	var reps []controller.Scenario
	runID := 0
	for _, name := range names {
		sc, err := scenario.Lookup(strings.TrimSpace(name))
		if err != nil {
			t.Fatal(err)
		}
		if sc.Controller == nil {
			t.Fatalf("%s is not a controller scenario", name)
		}
		// Scaled to what writers through HTTP and etcd replay in seconds,
		// keeping the objects per namespace.
		g := sc.Gen
		perNS := max(1, g.Objects/g.Namespaces)
		g.Objects, g.Events = min(g.Objects, objects), min(g.Events, events)
		g.Namespaces = max(1, g.Objects/perNS)
		s, err := gen.Generate(g)
		if err != nil {
			t.Fatal(err)
		}
		objs := gen.NewObjects(s)
		o := sc.Controller.Options(sc.Opts)
		rep := controller.Scenario{Name: sc.Name + "-apiserver", Seed: g.Seed, Digest: s.Digest, Stream: s.Stats, Rate: o.Schedule.Rate, Rounds: count}
		for range count {
			for _, st := range controller.Styles {
				stacks, err := controller.ParseStacks(st, sc.Controller.Stacks[st])
				if err != nil {
					t.Fatal(err)
				}
				for _, sk := range stacks {
					runID++
					res, err := controller.RunAPI(context.Background(), client, fmt.Sprintf("r%d", runID), st, sk, s, objs, o)
					if err != nil {
						t.Fatalf("%s %s %s: %v", sc.Name, st, sk.Name(), err)
					}
					t.Logf("%s %s %s: %.0f reconciles/s, p99 %.1fms, ok=%v", sc.Name, st, sk.Name(), res.ReconcilesPerSec, float64(res.Latency.P99)/1e6, res.OK())
					if !res.OK() {
						t.Errorf("%s %s %s: not ledger-clean: stalled=%v process errors=%d violations=%v", sc.Name, st, sk.Name(), res.Stalled, res.ProcessErrors, res.Violations)
					}
					rep.Results = append(rep.Results, res)
				}
			}
		}
		reps = append(reps, rep)
	}
	if err := controller.Table(os.Stdout, reps); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("E2E_BENCH"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fmt.Fprintf(f, "pkg: github.com/queuelab/queuelab/loadgen/e2e\n")
		if err := controller.Bench(f, reps); err != nil {
			t.Fatal(err)
		}
	}
}

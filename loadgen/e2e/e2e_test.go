//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

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

// restartConverge is the stated convergence bound of a run whose API
// server restarted: from the server serving again and the last write
// accepted until every change was reconciled. While its watch keeps
// failing, client-go's Reflector backs off 800 ms doubling up to an
// interval in [30, 60) s, so it may first try again up to a minute after
// the server is back; then one relist or re-watch and the reconciles it
// causes, which the fault scenarios bound by 15 s.
const restartConverge = 75 * time.Second

// restart is the E2E_RESTART fault: with E2E_RESTART=f, each run stops
// kube-apiserver once f of its live writes were accepted, keeps it down
// E2E_RESTART_DOWN (default 3s) and starts it again on the same port, certificates and
// etcd (which keeps running). nil without E2E_RESTART.
func restart(t *testing.T, testEnv *envtest.Environment) *controller.Outage {
	v := os.Getenv("E2E_RESTART")
	if v == "" {
		return nil
	}
	after, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("E2E_RESTART: want the fraction of writes before the restart, got %q", v)
	}
	down, err := time.ParseDuration(env("E2E_RESTART_DOWN", "3s"))
	if err != nil {
		t.Fatalf("E2E_RESTART_DOWN: %v", err)
	}
	return &controller.Outage{After: after, Interrupt: func(ctx context.Context) error {
		as := testEnv.ControlPlane.GetAPIServer()
		t0 := time.Now()
		if err := as.Stop(); err != nil {
			// Past its stop timeout envtest kills it: down all the same
			// (a Start on a port still held fails below).
			t.Logf("stopping kube-apiserver: %v", err)
		}
		stopped := time.Since(t0)
		select {
		case <-time.After(down):
		case <-ctx.Done():
			return ctx.Err()
		}
		t1 := time.Now()
		if err := as.Start(); err != nil {
			return fmt.Errorf("starting kube-apiserver again: %w", err)
		}
		t.Logf("kube-apiserver restarted: stopped in %v, down %v, serving again %v after start", stopped.Round(time.Millisecond), down, time.Since(t1).Round(time.Millisecond))
		return nil
	}}
}

// TestControllersAgainstAPIServer runs E2E_SCENARIOS (default: every
// controller scenario an API server can replay) E2E_COUNT rounds over
// their stacks, scaled to E2E_OBJECTS objects and E2E_EVENTS events (the
// writers go through HTTP and etcd), prints the same table as the
// synthetic runs and, with E2E_BENCH set, writes benchfmt to that file.
// Every run must be ledger-clean; with E2E_RESTART every run also
// restarts kube-apiserver mid-stream (see restart) and must drain within
// E2E_CONVERGE (default restartConverge) of its stream's end.
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

	// A certificate directory of its own, so a restarted kube-apiserver
	// serves the same certificates (envtest regenerates those of a
	// directory it made) and the clients keep trusting it.
	testEnv := &envtest.Environment{ControlPlane: envtest.ControlPlane{APIServer: &envtest.APIServer{CertDir: t.TempDir()}}}
	outage := restart(t, testEnv)
	var converge time.Duration
	if outage != nil {
		converge = restartConverge
	}
	if v := os.Getenv("E2E_CONVERGE"); v != "" {
		if converge, err = time.ParseDuration(v); err != nil {
			t.Fatalf("E2E_CONVERGE: %v", err)
		}
	}
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
		o.Outage, o.Converge = outage, converge
		name := sc.Name + "-apiserver"
		if outage != nil {
			name += "-restart"
		}
		rep := controller.Scenario{Name: name, Seed: g.Seed, Digest: s.Digest, Stream: s.Stats, Rate: o.Schedule.Rate, Rounds: count}
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
					if outage != nil {
						t.Logf("%s %s %s ledger: %d events, %d reconciles, outage %v, %d writes retried, informer %d lists and %d watches, drained %v after the stream ended (bound %v), %d violations, stalled=%v, process errors=%d",
							sc.Name, st, sk.Name(), res.Events, res.Reconciles, res.Outage.Round(time.Millisecond), res.WriteRetries, res.Source.Lists, res.Source.Watches,
							res.Converge.Round(time.Millisecond), converge, len(res.Violations), res.Stalled, res.ProcessErrors)
					}
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

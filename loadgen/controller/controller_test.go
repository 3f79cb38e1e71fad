package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tinyStream is two thousand events with deletes, missed deletes and a
// relist: every path of the books in well under a second per run.
func tinyStream(t *testing.T) (*gen.Stream, *gen.Objects) {
	t.Helper()
	cfg := gen.Defaults()
	cfg.Objects, cfg.Namespaces, cfg.Labels, cfg.Events = 500, 10, 20, 2000
	cfg.RelistEvery = time.Second
	s, err := gen.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, gen.NewObjects(s)
}

// objectStream is a stream of object events only (no relists or missed
// deletes), as an API server replays.
func objectStream(t *testing.T, objects, namespaces, labels, events int) (*gen.Stream, *gen.Objects) {
	t.Helper()
	cfg := gen.Defaults()
	cfg.Objects, cfg.Namespaces, cfg.Labels, cfg.Events = objects, namespaces, labels, events
	cfg.RelistEvery, cfg.Missed = 0, 0
	s, err := gen.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, gen.NewObjects(s)
}

// TestRunIsLedgerClean runs each style with its stock stack and lab
// stacks, in the normal and the restart shape, and requires a clean
// ledger: nothing lost, duplicated, reconciled twice at once or read stale.
// The drop-in informer with the lock-free store is among them: its "lost"
// deletions were the run stopping before the handler had been told (see
// Ledger.OwedDeletes), not the informer losing them.
func TestRunIsLedgerClean(t *testing.T) {
	s, objs := tinyStream(t)
	stacks := map[Style][]Stack{
		ClientGo:    {Baseline(ClientGo), {Informer: "lockfree+deltafifo-mutex", Queue: "ring"}, {Informer: "clientgo", Queue: "pq-lockfree"}},
		CtrlRuntime: {Baseline(CtrlRuntime), {Informer: "lockfree+deltafifo-mutex", Queue: "mutex"}, {Informer: "clientgo", Queue: "pq-mutex"}, {Informer: "informer-lockfree", Queue: PriorityQueueName}},
	}
	for _, st := range Styles {
		for _, sk := range stacks[st] {
			for _, restart := range []bool{false, true} {
				name := string(st) + "/impl=" + sk.Name()
				if restart {
					name += "/restart"
				}
				t.Run(name, func(t *testing.T) {
					o := DefaultOptions()
					o.Workers, o.ErrorRate, o.Restart = 4, 0.05, restart
					o.Lists = 1
					if restart {
						o.Schedule = gen.Schedule{Rate: 20_000}
					}
					res, err := Run(context.Background(), st, sk, s, objs, o)
					requireLedgerClean(t, res, err)
					if res.Reconciles == 0 || res.Latency.Count == 0 || res.Sync <= 0 {
						t.Fatalf("nothing measured: %+v", res)
					}
				})
			}
		}
	}
}

// TestRunAPIIsLedgerClean drives the API-server path (writers through a
// clientset, informers listing and watching through it) over client-go's
// fake clientset, so `make e2e` only adds the real server.
func TestRunAPIIsLedgerClean(t *testing.T) {
	s, objs := objectStream(t, 200, 4, 10, 600)
	eachStockAndLabStack(t, func(t *testing.T, i int, st Style, sk Stack) {
		o := DefaultOptions()
		o.ErrorRate = 0.05
		res, err := RunAPI(context.Background(), fake.NewClientset(), fmt.Sprintf("t%d", i), st, sk, s, objs, o)
		requireLedgerClean(t, res, err)
	})
}

// eachStockAndLabStack runs test once per style on its stock stack and once
// on a lab stack (the lock-free informer over the mutex DeltaFIFO, with the
// ring work queue), each a subtest named by style and stack; i numbers the
// stacks within a style.
func eachStockAndLabStack(t *testing.T, test func(t *testing.T, i int, st Style, sk Stack)) {
	for _, st := range Styles {
		for i, sk := range []Stack{Baseline(st), {Informer: "lockfree+deltafifo-mutex", Queue: "ring"}} {
			t.Run(string(st)+"/impl="+sk.Name(), func(t *testing.T) { test(t, i, st, sk) })
		}
	}
}

// requireLedgerClean stops the test unless the run that returned res and
// err (Run or RunAPI) finished without error and with a clean ledger:
// nothing lost, duplicated, reconciled twice at once or read stale.
func requireLedgerClean(t *testing.T, res *Result, err error) {
	t.Helper()
	require.NoError(t, err)
	require.True(t, res.OK(), "stalled=%v process errors=%d\n%s", res.Stalled, res.ProcessErrors, account.Summary(res.Violations))
}

package scenario

import (
	"context"
	"testing"
	"time"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/pipeline"
)

// TestScaleIsLedgerClean runs the scale scenario's stacks over a tiny
// stream with one relist, open loop: every ledger clean, the initial sync
// timed, and the relist applied, its window closed by the handler hearing
// of every listed object. One relist, and the stacks in parallel, because
// client-go's Reflector waits 0.8 s before a relist (1.6 s before a
// second); so the heap figures, which a neighbour's garbage moves, are
// not checked here.
func TestScaleIsLedgerClean(t *testing.T) {
	for _, name := range []string{"scale", "scale-200k"} {
		sc, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if !sc.Opts.Footprint || sc.Gen.RelistEvery == 0 {
			t.Fatalf("%s: footprint %v, relist every %v: want a footprint run with relists", name, sc.Opts.Footprint, sc.Gen.RelistEvery)
		}
	}
	sc, err := Lookup("scale")
	if err != nil {
		t.Fatal(err)
	}
	sc.Gen.Objects, sc.Gen.Namespaces, sc.Gen.Events = 1000, 10, 2000
	sc.Gen.RelistEvery = time.Second // every 1000 events: at 1000
	s, err := gen.Generate(sc.Gen)
	if err != nil {
		t.Fatal(err)
	}
	if s.Stats.Relists != 1 {
		t.Fatalf("%d relists in the stream, want 1", s.Stats.Relists)
	}
	objs := gen.NewObjects(s)
	stacks, err := pipeline.Default().Select(pipeline.Store, sc.Stacks[pipeline.Store])
	if err != nil {
		t.Fatal(err)
	}
	o := sc.Opts
	o.Schedule = gen.Schedule{}
	for _, st := range stacks {
		t.Run("impl="+st.Name(pipeline.Store), func(t *testing.T) {
			t.Parallel()
			res, err := pipeline.Run(context.Background(), pipeline.Store, st, s, objs, o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK() {
				t.Fatalf("run failed: stalled=%v\n%s", res.Stalled, account.Summary(res.Violations))
			}
			if res.Synced <= 0 || res.Synced > res.Sync {
				t.Errorf("time to synced %v, want in (0, %v] (the sync with the list built)", res.Synced, res.Sync)
			}
			if res.RelistsApplied != 1 || res.Source.Relists != 1 {
				t.Errorf("%d relists applied of %d, want 1 of 1", res.RelistsApplied, res.Source.Relists)
			}
			if res.RelistTime <= 0 {
				t.Errorf("longest relist window %v, want > 0", res.RelistTime)
			}
		})
	}
}

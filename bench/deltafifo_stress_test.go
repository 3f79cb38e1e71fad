package bench

import (
	"context"
	"os"
	"strconv"
	"testing"

	labinformer "github.com/queuelab/queuelab/informer"
	labregistry "github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/pipeline"
	"github.com/queuelab/queuelab/queues/deltafifo"
)

// TestDeltaFIFOStackStress reruns the store pipeline's smoke stream over the
// drop-in with client-go's store and the sharded and ring DeltaFIFOs, the
// stacks kept out of the lab's registry after a rare ledger failure
// (results/notes.md, "A sharded DeltaFIFO under the drop-in informer"). It
// is skipped unless QUEUELAB_STRESS_RUNS gives the runs per stack:
//
//	QUEUELAB_STRESS_RUNS=30 go test -run TestDeltaFIFOStackStress -timeout 60m ./bench
//
// A failure says whether the run stalled and what the watch source did.
func TestDeltaFIFOStackStress(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("QUEUELAB_STRESS_RUNS"))
	if runs <= 0 {
		t.Skip("set QUEUELAB_STRESS_RUNS to the runs per stack")
	}
	sc, stream, objs := smoke(t)
	store, err := pipeline.Default().Stores.Lookup(labregistry.Baseline)
	if err != nil {
		t.Fatal(err)
	}
	for _, fifo := range []pipeline.FIFOEntry{
		{Name: "deltafifo-sharded", New: labinformer.DeltaFIFO(deltafifo.NewSharded, deltafifo.Options{})},
		{Name: "deltafifo-ring", New: labinformer.DeltaFIFO(deltafifo.NewRing, deltafifo.Options{})},
	} {
		st := pipeline.Stack{Store: store, FIFO: fifo}
		t.Run(fifo.Name, func(t *testing.T) {
			for i := range runs {
				res, err := pipeline.Run(context.Background(), pipeline.Store, st, stream, objs, sc.Opts)
				if err != nil {
					t.Fatal(err)
				}
				if !res.OK() {
					t.Fatalf("run %d: stalled=%v source=%+v\n%s", i, res.Stalled, res.Source, account.Summary(res.Violations))
				}
			}
		})
	}
}

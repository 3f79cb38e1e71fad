package bench

import (
	"context"
	"testing"

	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/pipeline"
	"github.com/queuelab/queuelab/loadgen/scenario"
)

// BenchmarkPipeline drives the loadgen smoke scenario (2k pods, 10k events
// with relists, resyncs and disconnects) through every pipeline and every
// implementation stack; one op is one whole run, so -benchtime=1x is a
// complete, verified macro benchmark. A run that fails its correctness
// checks fails the benchmark.
func BenchmarkPipeline(b *testing.B) {
	sc, stream, objs := smoke(b)
	reg := pipeline.Default()
	for _, k := range pipeline.Kinds {
		stacks, err := reg.Select(k, "all")
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range stacks {
			b.Run("pipeline="+string(k)+"/scenario="+sc.Name+"/impl="+st.Name(k), func(b *testing.B) {
				b.ReportAllocs()
				var rate, p99 float64
				runs := 0
				for b.Loop() {
					res, err := pipeline.Run(context.Background(), k, st, stream, objs, sc.Opts)
					if err != nil {
						b.Fatal(err)
					}
					if !res.OK() {
						b.Fatalf("%s over %s failed its correctness checks (stalled=%v, source %+v): %+v", k, st.Name(k), res.Stalled, res.Source, res.Violations)
					}
					rate += res.EventsPerSec
					p99 = max(p99, float64(res.Latency.P99))
					runs++
				}
				// The measured phase's rate, not b.Elapsed: a run's setup,
				// initial sync and verification are not throughput.
				b.ReportMetric(rate/float64(runs), "events/s")
				b.ReportMetric(p99, "p99_ns")
			})
		}
	}
}

// smoke is the loadgen smoke scenario with its stream and objects, built
// once for every run that replays it.
func smoke(tb testing.TB) (scenario.Scenario, *gen.Stream, *gen.Objects) {
	tb.Helper()
	sc, err := scenario.Lookup("smoke")
	if err != nil {
		tb.Fatal(err)
	}
	stream, err := gen.Generate(sc.Gen)
	if err != nil {
		tb.Fatal(err)
	}
	return sc, stream, gen.NewObjects(stream)
}

// Package report renders load-run results three ways: a table for people
// (client-go's stack as the baseline column, ratios against it), JSON for
// machines, and benchfmt lines so `go tool benchstat` and `queuelab
// compare` treat two load runs like two `go test -bench` runs.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchunit"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/internal/tabulate"
	"github.com/queuelab/queuelab/loadgen/pipeline"
)

// Scenario is one scenario's results over one or more implementations.
type Scenario = tabulate.Scenario[*pipeline.Result]

// metric is one reported quantity of a pipeline run.
type metric = tabulate.Metric[*pipeline.Result]

func ns(d time.Duration) float64 { return float64(d) }

var metrics = []metric{
	{Label: "events/s", Unit: "events/s", Better: tabulate.Higher, Get: tabulate.Always(func(r *pipeline.Result) float64 { return r.EventsPerSec })},
	{Label: "p50 latency", Unit: "p50_ns", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return float64(r.Latency.P50) })},
	{Label: "p90 latency", Unit: "p90_ns", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return float64(r.Latency.P90) })},
	{Label: "p99 latency", Unit: "p99_ns", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return float64(r.Latency.P99) })},
	{Label: "p99.9 latency", Unit: "p999_ns", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return float64(r.Latency.P999) })},
	{Label: "max latency", Unit: "max_ns", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return float64(r.Latency.Max) })},
	{Label: "reconciles/event", Unit: "reconciles/event", Better: tabulate.Neutral, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return r.ReconcilesPerEvent })},
	{Label: "initial sync", Unit: "sync_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return ns(r.Sync) })},
	{Label: "reads/s", Unit: "reads/s", Better: tabulate.Higher, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return r.ReadsPerSec })},
	{Label: "writes/s", Unit: "writes/s", Better: tabulate.Higher, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return r.WritesPerSec })},
	{Label: "peak queue depth", Unit: "peak-depth", Better: tabulate.Lower, Get: func(r *pipeline.Result) (float64, bool) {
		return float64(r.PeakDepth), r.Pipeline != pipeline.Store
	}},
	{Label: "peak pending keys", Unit: "peak-pending", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return float64(r.PeakPending) })},
	{Label: "peak heap", Unit: "peak-heap-B", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return float64(r.PeakHeap) })},
	{Label: "peak RSS", Unit: "peak-rss-B", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return float64(r.PeakRSS) })},
	{Label: "retained/object", Unit: "B/obj", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return r.RetainedPerObject })},
	{Label: "allocs/event", Unit: "allocs/event", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return r.AllocsPerEvent })},
	{Label: "bytes/event", Unit: "B/event", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return r.BytesPerEvent })},
	{Label: "GC pause total", Unit: "gcpause_ns", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return ns(r.GCPause) })},
	{Label: "GC CPU fraction", Unit: "gc-cpu-frac", Better: tabulate.Lower, Get: tabulate.Always(func(r *pipeline.Result) float64 { return r.GCCPUFraction })},
	// Footprint runs (pipeline.Options.Footprint) only.
	{Label: "time to synced", Unit: "synced_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return ns(r.Synced) })},
	{Label: "object heap/object", Unit: "object-B/obj", Better: tabulate.Neutral, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return r.ObjectBytes })},
	{Label: "informer heap/object", Unit: "own-B/obj", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return r.OwnPerObject })},
	{Label: "peak heap in relist", Unit: "relist-peak-heap-B", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return float64(r.RelistPeakHeap) })},
	{Label: "relist applied in", Unit: "relist_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return ns(r.RelistTime) })},
	{Label: "p50 latency in relist", Unit: "relist-p50_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return float64(r.RelistLatency.P50) })},
	{Label: "p99 latency in relist", Unit: "relist-p99_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return float64(r.RelistLatency.P99) })},
	{Label: "max latency in relist", Unit: "relist-max_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *pipeline.Result) float64 { return float64(r.RelistLatency.Max) })},
}

// column is one implementation's runs within a pipeline: a table column.
type column = tabulate.Column[*pipeline.Result]

// groups splits a scenario's results by pipeline and, within each, into one
// column per implementation, the baseline first and the rest in run order.
func groups(s Scenario) [][]column {
	return tabulate.Groups(s.Results, func(r *pipeline.Result) pipeline.Kind { return r.Pipeline },
		func(r *pipeline.Result) string { return r.Impl }, func(r *pipeline.Result) bool { return r.Baseline })
}

// Table writes, per scenario and pipeline, one table with a row per metric
// and a column per implementation: the baseline's median over the rounds,
// and every other implementation's ratio to it, marked "~" where the
// rounds cannot tell them apart. The numbers go through benchcmp as
// benchfmt lines (Bench), so they are laid out and tested exactly as
// `queuelab compare` and the results page lay out and test benchmarks.
func Table(w io.Writer, scenarios []Scenario) error {
	for _, s := range scenarios {
		fmt.Fprintf(w, "scenario=%s seed=%d digest=%s\n", s.Name, s.Seed, shortDigest(s.Digest))
		fmt.Fprintf(w, "stream: %d adds, %d updates, %d deletes (%d missed -> %d tombstones), %d relists, %d resyncs, %d disconnects; offered %s\n",
			s.Stream.Adds, s.Stream.Updates, s.Stream.Deletes, s.Stream.MissedDeletes, s.Stream.Tombstones,
			s.Stream.Relists, s.Stream.Resyncs, s.Stream.Disconnects, tabulate.Rate(s.Rate))
		if s.Rounds > 1 {
			fmt.Fprintf(w, "medians of %d interleaved rounds\n", s.Rounds)
		}
		fmt.Fprintln(w)
		var text bytes.Buffer
		if err := Bench(&text, []Scenario{s}); err != nil {
			return err
		}
		data, err := benchcmp.Read(s.Name, text.Bytes())
		if err != nil {
			return err
		}
		grid, err := data.Group(benchcmp.ByImpl, benchcmp.Options{})
		if err != nil {
			return err
		}
		for _, g := range groups(s) {
			pl := string(g[0].Runs[0].Pipeline)
			row := grid.Rows[slices.IndexFunc(grid.Rows, func(r *benchcmp.Row) bool { p, _ := r.Param("pipeline"); return p == pl })]
			var lines []benchcmp.Line
			for _, m := range metrics {
				_, unit := benchunit.Tidy(1, m.Unit)
				lines = append(lines, benchcmp.Line{Label: m.Label + arrow[m.Better], Row: row, Units: []string{unit}})
			}
			for _, t := range grid.RatioTables(row.Sub(), lines, baseline(g), 0) {
				t.Head[0] = "metric"
				if err := t.WriteText(w); err != nil {
					return err
				}
			}
			verdicts := make([]string, len(g))
			for i, c := range g {
				verdicts[i] = c.Impl + " " + columnVerdict(c)
			}
			fmt.Fprintf(w, "correct: %s\n", strings.Join(verdicts, ", "))
			for _, c := range g {
				for _, r := range c.Runs {
					if !r.OK() {
						fmt.Fprintf(w, "FAILED %s:\n%s", r.Impl, failure(r))
					}
				}
			}
			fmt.Fprintln(w)
		}
	}
	_, err := fmt.Fprintln(w, "ratios are to the baseline's median; ~ = no significant difference (alpha 0.05; fewer than 4 rounds never are)")
	return err
}

// arrow marks a metric's direction in its row label.
var arrow = map[tabulate.Direction]string{tabulate.Higher: " ↑", tabulate.Lower: " ↓", tabulate.Neutral: ""}

// baseline is the implementation of a pipeline's baseline column, or "".
func baseline(g []column) string {
	if g[0].Runs[0].Baseline {
		return g[0].Impl
	}
	return ""
}

// columnVerdict is "ok" when every run of the column passed its checks,
// otherwise the first failing run's verdict.
func columnVerdict(c column) string {
	for _, r := range c.Runs {
		if !r.OK() {
			return verdict(r)
		}
	}
	return "ok"
}

func verdict(r *pipeline.Result) string {
	switch {
	case r.Stalled && len(r.Violations) == 0:
		return "STALLED"
	case !r.OK():
		return fmt.Sprintf("FAIL(%d checks)", len(r.Violations))
	}
	return "ok"
}

func failure(r *pipeline.Result) string {
	s := account.Summary(r.Violations)
	if r.Stalled {
		s += "stalled: no progress before the stall timeout\n"
	}
	return s
}

func shortDigest(d string) string { return d[:min(16, len(d))] }

// JSON writes the scenarios as one JSON document.
func JSON(w io.Writer, scenarios []Scenario) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(scenarios)
}

// Bench writes benchfmt: configuration lines, a Unit line per metric
// declaring its direction, then one result line per run:
//
//	BenchmarkLoad/scenario=<s>/pipeline=<p>/impl=<combo> 1 <v> events/s ...
//
// (BenchmarkScale for footprint runs: benchBase).
//
// There is no ns/op: a run is not an operation, and its wall time is set
// by the stream's length (and, in fixed-rate scenarios, by the offered
// rate), so the rates and latencies are the result. A metric a pipeline
// does not have is left out of its line.
func Bench(w io.Writer, scenarios []Scenario) error {
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/queuelab/queuelab/loadgen\n", runtime.GOOS, runtime.GOARCH)
	if err := tabulate.WriteUnits(w, metrics); err != nil {
		return err
	}
	for _, s := range scenarios {
		for _, r := range s.Results {
			head := fmt.Sprintf("%s/scenario=%s/pipeline=%s/impl=%s 1", benchBase(r), s.Name, r.Pipeline, r.Impl)
			if err := tabulate.WriteResult(w, head, r, metrics); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchBase is a result's benchmark name: BenchmarkScale for a footprint
// run (pipeline.Options.Footprint, which always times its sync), so that
// results/README.md shows the scale scenarios as a family of their own
// and a scale raw file, newer than the last full lab run, does not stand
// in for its load scenarios; BenchmarkLoad otherwise.
func benchBase(r *pipeline.Result) string {
	if r.Synced > 0 {
		return "BenchmarkScale"
	}
	return "BenchmarkLoad"
}

// benchValue writes v in plain decimals, as go test does: four
// significant digits, never an exponent.

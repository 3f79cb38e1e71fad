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
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchunit"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/pipeline"
)

// Scenario is one scenario's results over one or more implementations.
type Scenario struct {
	Name   string    `json:"scenario"`
	Seed   uint64    `json:"seed"`
	Digest string    `json:"digest"`
	Stream gen.Stats `json:"stream"`
	Rate   float64   `json:"offered_rate"`
	// Rounds is how many times every stack ran (queuelab run --count);
	// Results holds every run, rounds interleaved.
	Rounds  int                `json:"rounds"`
	Results []*pipeline.Result `json:"results"`
}

// direction says which way a metric improves; neutral metrics (context,
// not a goal) get no Unit line, so no gate ever judges them.
type direction int

const (
	lower direction = iota
	higher
	neutral
)

// metric is one reported quantity: its table label, its benchfmt unit
// (units benchstat keeps as they are: '_' rather than '-' before "ns"),
// which way it improves, and how to read it (false: not applicable).
type metric struct {
	label, unit string
	better      direction
	get         func(*pipeline.Result) (float64, bool)
}

func always(f func(*pipeline.Result) float64) func(*pipeline.Result) (float64, bool) {
	return func(r *pipeline.Result) (float64, bool) { return f(r), true }
}

func positive(f func(*pipeline.Result) float64) func(*pipeline.Result) (float64, bool) {
	return func(r *pipeline.Result) (float64, bool) { v := f(r); return v, v > 0 }
}

func ns(d time.Duration) float64 { return float64(d) }

var metrics = []metric{
	{"events/s", "events/s", higher, always(func(r *pipeline.Result) float64 { return r.EventsPerSec })},
	{"p50 latency", "p50_ns", lower, always(func(r *pipeline.Result) float64 { return float64(r.Latency.P50) })},
	{"p90 latency", "p90_ns", lower, always(func(r *pipeline.Result) float64 { return float64(r.Latency.P90) })},
	{"p99 latency", "p99_ns", lower, always(func(r *pipeline.Result) float64 { return float64(r.Latency.P99) })},
	{"p99.9 latency", "p999_ns", lower, always(func(r *pipeline.Result) float64 { return float64(r.Latency.P999) })},
	{"max latency", "max_ns", lower, always(func(r *pipeline.Result) float64 { return float64(r.Latency.Max) })},
	{"reconciles/event", "reconciles/event", neutral, positive(func(r *pipeline.Result) float64 { return r.ReconcilesPerEvent })},
	{"initial sync", "sync_ns", lower, positive(func(r *pipeline.Result) float64 { return ns(r.Sync) })},
	{"reads/s", "reads/s", higher, positive(func(r *pipeline.Result) float64 { return r.ReadsPerSec })},
	{"writes/s", "writes/s", higher, positive(func(r *pipeline.Result) float64 { return r.WritesPerSec })},
	{"peak queue depth", "peak-depth", lower, func(r *pipeline.Result) (float64, bool) {
		return float64(r.PeakDepth), r.Pipeline != pipeline.Store
	}},
	{"peak pending keys", "peak-pending", lower, always(func(r *pipeline.Result) float64 { return float64(r.PeakPending) })},
	{"peak heap", "peak-heap-B", lower, always(func(r *pipeline.Result) float64 { return float64(r.PeakHeap) })},
	{"peak RSS", "peak-rss-B", lower, positive(func(r *pipeline.Result) float64 { return float64(r.PeakRSS) })},
	{"retained/object", "B/obj", lower, positive(func(r *pipeline.Result) float64 { return r.RetainedPerObject })},
	{"allocs/event", "allocs/event", lower, always(func(r *pipeline.Result) float64 { return r.AllocsPerEvent })},
	{"bytes/event", "B/event", lower, always(func(r *pipeline.Result) float64 { return r.BytesPerEvent })},
	{"GC pause total", "gcpause_ns", lower, always(func(r *pipeline.Result) float64 { return ns(r.GCPause) })},
	{"GC CPU fraction", "gc-cpu-frac", lower, always(func(r *pipeline.Result) float64 { return r.GCCPUFraction })},
}

// column is one implementation's runs within a pipeline: a table column.
type column struct {
	impl string
	runs []*pipeline.Result
}

// value is the median of m over the column's runs that have it.
func (c column) value(m metric) (float64, bool) {
	var vs []float64
	for _, r := range c.runs {
		if v, ok := m.get(r); ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 0 {
		return (vs[n/2-1] + vs[n/2]) / 2, true
	}
	return vs[n/2], true
}

// groups splits a scenario's results by pipeline and, within each, into one
// column per implementation, the baseline first and the rest in run order.
func groups(s Scenario) [][]column {
	var order []pipeline.Kind
	by := map[pipeline.Kind][]column{}
	for _, r := range s.Results {
		if _, ok := by[r.Pipeline]; !ok {
			order = append(order, r.Pipeline)
		}
		cols := by[r.Pipeline]
		i := slices.IndexFunc(cols, func(c column) bool { return c.impl == r.Impl })
		switch {
		case i >= 0:
			cols[i].runs = append(cols[i].runs, r)
		case r.Baseline:
			cols = append([]column{{impl: r.Impl, runs: []*pipeline.Result{r}}}, cols...)
		default:
			cols = append(cols, column{impl: r.Impl, runs: []*pipeline.Result{r}})
		}
		by[r.Pipeline] = cols
	}
	out := make([][]column, len(order))
	for i, k := range order {
		out[i] = by[k]
	}
	return out
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
			s.Stream.Relists, s.Stream.Resyncs, s.Stream.Disconnects, rateString(s.Rate))
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
			pl := string(g[0].runs[0].Pipeline)
			row := grid.Rows[slices.IndexFunc(grid.Rows, func(r *benchcmp.Row) bool { p, _ := r.Param("pipeline"); return p == pl })]
			var lines []benchcmp.Line
			for _, m := range metrics {
				_, unit := benchunit.Tidy(1, m.unit)
				lines = append(lines, benchcmp.Line{Label: m.label + arrow[m.better], Row: row, Units: []string{unit}})
			}
			for _, t := range grid.RatioTables(row.Sub(), lines, baseline(g), 0) {
				t.Head[0] = "metric"
				if err := t.WriteText(w); err != nil {
					return err
				}
			}
			verdicts := make([]string, len(g))
			for i, c := range g {
				verdicts[i] = c.impl + " " + columnVerdict(c)
			}
			fmt.Fprintf(w, "correct: %s\n", strings.Join(verdicts, ", "))
			for _, c := range g {
				for _, r := range c.runs {
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
var arrow = map[direction]string{higher: " ↑", lower: " ↓", neutral: ""}

// baseline is the implementation of a pipeline's baseline column, or "".
func baseline(g []column) string {
	if g[0].runs[0].Baseline {
		return g[0].impl
	}
	return ""
}

// columnVerdict is "ok" when every run of the column passed its checks,
// otherwise the first failing run's verdict.
func columnVerdict(c column) string {
	for _, r := range c.runs {
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

func rateString(rate float64) string {
	if rate == 0 {
		return "open loop"
	}
	return fmt.Sprintf("%.0f events/s", rate)
}

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
// There is no ns/op: a run is not an operation, and its wall time is set
// by the stream's length (and, in fixed-rate scenarios, by the offered
// rate), so the rates and latencies are the result. A metric a pipeline
// does not have is left out of its line.
func Bench(w io.Writer, scenarios []Scenario) error {
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/queuelab/queuelab/loadgen\n", runtime.GOOS, runtime.GOARCH)
	for _, m := range metrics {
		switch m.better {
		case higher:
			fmt.Fprintf(w, "Unit %s better=higher\n", m.unit)
		case lower:
			fmt.Fprintf(w, "Unit %s better=lower\n", m.unit)
		}
	}
	for _, s := range scenarios {
		for _, r := range s.Results {
			var b strings.Builder
			fmt.Fprintf(&b, "BenchmarkLoad/scenario=%s/pipeline=%s/impl=%s 1", s.Name, r.Pipeline, r.Impl)
			for _, m := range metrics {
				if v, ok := m.get(r); ok {
					fmt.Fprintf(&b, " %s %s", benchValue(v), m.unit)
				}
			}
			if _, err := fmt.Fprintln(w, b.String()); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchValue writes v in plain decimals, as go test does: four
// significant digits, never an exponent.
func benchValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 || math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', max(0, 3-int(math.Floor(math.Log10(math.Abs(v))))), 64)
}

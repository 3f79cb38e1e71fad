package controller

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
)

// Scenario is one controller scenario's results over stacks and styles.
type Scenario struct {
	Name    string    `json:"scenario"`
	Seed    uint64    `json:"seed"`
	Digest  string    `json:"digest"`
	Stream  gen.Stats `json:"stream"`
	Rate    float64   `json:"offered_rate"`
	Rounds  int       `json:"rounds"`
	Results []*Result `json:"results"`
}

type direction int

const (
	lower direction = iota
	higher
)

// metric is one reported quantity: table label, benchfmt unit, direction.
type metric struct {
	label, unit string
	better      direction
	get         func(*Result) (float64, bool)
}

func always(f func(*Result) float64) func(*Result) (float64, bool) {
	return func(r *Result) (float64, bool) { return f(r), true }
}

func positive(f func(*Result) float64) func(*Result) (float64, bool) {
	return func(r *Result) (float64, bool) { v := f(r); return v, v > 0 }
}

var reported = []metric{
	{"reconciles/s", "reconciles/s", higher, always(func(r *Result) float64 { return r.ReconcilesPerSec })},
	{"events/s", "events/s", higher, always(func(r *Result) float64 { return r.EventsPerSec })},
	{"event→reconcile p50", "p50_ns", lower, positive(func(r *Result) float64 { return float64(r.Latency.P50) })},
	{"event→reconcile p99", "p99_ns", lower, positive(func(r *Result) float64 { return float64(r.Latency.P99) })},
	{"event→reconcile max", "max_ns", lower, positive(func(r *Result) float64 { return float64(r.Latency.Max) })},
	{"lister staleness p99", "stale-p99_ns", lower, positive(func(r *Result) float64 { return float64(r.Staleness.P99) })},
	{"time to synced", "sync_ns", lower, positive(func(r *Result) float64 { return float64(r.Sync) })},
	{"CPU/reconcile", "cpu/reconcile_ns", lower, positive(func(r *Result) float64 { return float64(r.CPUPerReconcile) })},
	{"peak heap", "peak-heap-B", lower, always(func(r *Result) float64 { return float64(r.PeakHeap) })},
	{"heap/object", "B/obj", lower, positive(func(r *Result) float64 { return r.HeapPerObject })},
	{"peak queue depth", "peak-depth", lower, always(func(r *Result) float64 { return float64(r.PeakDepth) })},
	{"GC CPU fraction", "gc-cpu-frac", lower, always(func(r *Result) float64 { return r.GCCPUFraction })},
}

type column struct {
	impl string
	runs []*Result
}

func (c column) median(m metric) (float64, bool) {
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

// groups splits results by style, baseline column first.
func groups(s Scenario) [][]column {
	var order []Style
	by := map[Style][]column{}
	for _, r := range s.Results {
		if _, ok := by[r.Style]; !ok {
			order = append(order, r.Style)
		}
		cols := by[r.Style]
		i := slices.IndexFunc(cols, func(c column) bool { return c.impl == r.Impl })
		switch {
		case i >= 0:
			cols[i].runs = append(cols[i].runs, r)
		case r.Baseline:
			cols = append([]column{{impl: r.Impl, runs: []*Result{r}}}, cols...)
		default:
			cols = append(cols, column{impl: r.Impl, runs: []*Result{r}})
		}
		by[r.Style] = cols
	}
	out := make([][]column, len(order))
	for i, st := range order {
		out[i] = by[st]
	}
	return out
}

// Table writes one table per scenario and style: metrics as rows, stacks
// as columns (medians over rounds), ratios against the style's baseline.
func Table(w io.Writer, scenarios []Scenario) error {
	for _, s := range scenarios {
		for _, g := range groups(s) {
			fmt.Fprintf(w, "scenario=%s style=%s seed=%d digest=%s\n", s.Name, g[0].runs[0].Style, s.Seed, s.Digest[:min(16, len(s.Digest))])
			fmt.Fprintf(w, "stream: %d adds, %d updates, %d deletes (%d tombstones), %d relists; offered %s",
				s.Stream.Adds, s.Stream.Updates, s.Stream.Deletes, s.Stream.Tombstones, s.Stream.Relists, rateString(s.Rate))
			if s.Rounds > 1 {
				fmt.Fprintf(w, "; medians of %d interleaved rounds", s.Rounds)
			}
			fmt.Fprintln(w)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			head := []string{"metric"}
			for _, c := range g {
				head = append(head, c.impl)
			}
			fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
			hasBase := g[0].runs[0].Baseline
			for _, m := range reported {
				var bv float64
				row, any := []string{m.label}, false
				for i, c := range g {
					v, ok := c.median(m)
					if !ok {
						row = append(row, "-")
						continue
					}
					if i == 0 && hasBase {
						bv = v
					}
					any = true
					cell := format(m.unit, v)
					if i > 0 && bv != 0 {
						cell += fmt.Sprintf(" (%.2fx)", v/bv)
					}
					row = append(row, cell)
				}
				if any {
					fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
				}
			}
			row := []string{"correct"}
			for _, c := range g {
				row = append(row, verdict(c))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, c := range g {
				for _, r := range c.runs {
					if !r.OK() {
						fmt.Fprintf(w, "FAILED %s/%s: %s", r.Style, r.Impl, failure(r))
					}
				}
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}

func verdict(c column) string {
	for _, r := range c.runs {
		if !r.OK() {
			return "FAIL"
		}
	}
	return "ok"
}

func failure(r *Result) string {
	s := account.Summary(r.Violations)
	if r.Stalled {
		s += "stalled: no progress before the stall timeout\n"
	}
	if r.ProcessErrors > 0 {
		s += fmt.Sprintf("%d process errors\n", r.ProcessErrors)
	}
	return s
}

func rateString(rate float64) string {
	if rate == 0 {
		return "open loop"
	}
	return fmt.Sprintf("%.0f events/s", rate)
}

func format(unit string, v float64) string {
	switch {
	case strings.HasSuffix(unit, "_ns"):
		return time.Duration(v).Round(time.Microsecond / 10).String()
	case strings.HasSuffix(unit, "-B") || unit == "B/obj":
		switch {
		case v >= 1<<20:
			return fmt.Sprintf("%.1fMiB", v/(1<<20))
		case v >= 1<<10:
			return fmt.Sprintf("%.1fKiB", v/(1<<10))
		}
		return fmt.Sprintf("%.0fB", v)
	case unit == "gc-cpu-frac":
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	return fmt.Sprintf("%.0f", v)
}

// Bench writes benchfmt, one line per run:
//
//	BenchmarkController/scenario=<s>/style=<style>/impl=<informer>+<queue> 1 <ns> ns/op <v> reconciles/s ...
//
// so `go tool benchstat -col /impl` gives each stack's ratio to the
// style's baseline with its spread.
func Bench(w io.Writer, scenarios []Scenario) error {
	for _, m := range reported {
		dir := "lower"
		if m.better == higher {
			dir = "higher"
		}
		fmt.Fprintf(w, "Unit %s better=%s\n", m.unit, dir)
	}
	for _, s := range scenarios {
		for _, r := range s.Results {
			var b strings.Builder
			fmt.Fprintf(&b, "BenchmarkController/scenario=%s/style=%s/impl=%s 1 %d ns/op", s.Name, r.Style, r.Impl, r.Duration.Nanoseconds())
			for _, m := range reported {
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

func benchValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

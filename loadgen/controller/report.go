package controller

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/internal/tabulate"
)

// Scenario is one controller scenario's results over stacks and styles.
type Scenario = tabulate.Scenario[*Result]

// metric is one reported quantity of a controller run.
type metric = tabulate.Metric[*Result]

var reported = []metric{
	{Label: "reconciles/s", Unit: "reconciles/s", Better: tabulate.Higher, Get: tabulate.Always(func(r *Result) float64 { return r.ReconcilesPerSec })},
	{Label: "events/s", Unit: "events/s", Better: tabulate.Higher, Get: tabulate.Always(func(r *Result) float64 { return r.EventsPerSec })},
	{Label: "event→reconcile p50", Unit: "p50_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *Result) float64 { return float64(r.Latency.P50) })},
	{Label: "event→reconcile p99", Unit: "p99_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *Result) float64 { return float64(r.Latency.P99) })},
	{Label: "event→reconcile max", Unit: "max_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *Result) float64 { return float64(r.Latency.Max) })},
	{Label: "lister staleness p99", Unit: "stale-p99_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *Result) float64 { return float64(r.Staleness.P99) })},
	{Label: "time to synced", Unit: "sync_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *Result) float64 { return float64(r.Sync) })},
	{Label: "CPU/reconcile", Unit: "cpu/reconcile_ns", Better: tabulate.Lower, Get: tabulate.Positive(func(r *Result) float64 { return float64(r.CPUPerReconcile) })},
	{Label: "peak heap", Unit: "peak-heap-B", Better: tabulate.Lower, Get: tabulate.Always(func(r *Result) float64 { return float64(r.PeakHeap) })},
	{Label: "heap/object", Unit: "B/obj", Better: tabulate.Lower, Get: tabulate.Positive(func(r *Result) float64 { return r.HeapPerObject })},
	{Label: "peak queue depth", Unit: "peak-depth", Better: tabulate.Lower, Get: tabulate.Always(func(r *Result) float64 { return float64(r.PeakDepth) })},
	{Label: "GC CPU fraction", Unit: "gc-cpu-frac", Better: tabulate.Lower, Get: tabulate.Always(func(r *Result) float64 { return r.GCCPUFraction })},
}

// column is one stack's runs within a style: a table column.
type column = tabulate.Column[*Result]

// groups splits results by style, baseline column first.
func groups(s Scenario) [][]column {
	return tabulate.Groups(s.Results, func(r *Result) Style { return r.Style },
		func(r *Result) string { return r.Impl }, func(r *Result) bool { return r.Baseline })
}

// Table writes one table per scenario and style: metrics as rows, stacks
// as columns (medians over rounds), ratios against the style's baseline.
func Table(w io.Writer, scenarios []Scenario) error {
	for _, s := range scenarios {
		for _, g := range groups(s) {
			fmt.Fprintf(w, "scenario=%s style=%s seed=%d digest=%s\n", s.Name, g[0].Runs[0].Style, s.Seed, s.Digest[:min(16, len(s.Digest))])
			fmt.Fprintf(w, "stream: %d adds, %d updates, %d deletes (%d tombstones), %d relists; offered %s",
				s.Stream.Adds, s.Stream.Updates, s.Stream.Deletes, s.Stream.Tombstones, s.Stream.Relists, tabulate.Rate(s.Rate))
			if s.Rounds > 1 {
				fmt.Fprintf(w, "; medians of %d interleaved rounds", s.Rounds)
			}
			fmt.Fprintln(w)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			head := []string{"metric"}
			for _, c := range g {
				head = append(head, c.Impl)
			}
			fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
			hasBase := g[0].Runs[0].Baseline
			for _, m := range reported {
				var bv float64
				row, any := []string{m.Label}, false
				for i, c := range g {
					v, ok := c.Median(m.Get)
					if !ok {
						row = append(row, "-")
						continue
					}
					if i == 0 && hasBase {
						bv = v
					}
					any = true
					cell := format(m.Unit, v)
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
				for _, r := range c.Runs {
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
	for _, r := range c.Runs {
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
	if err := tabulate.WriteUnits(w, reported); err != nil {
		return err
	}
	for _, s := range scenarios {
		for _, r := range s.Results {
			head := fmt.Sprintf("BenchmarkController/scenario=%s/style=%s/impl=%s 1 %d ns/op", s.Name, r.Style, r.Impl, r.Duration.Nanoseconds())
			if err := tabulate.WriteResult(w, head, r, reported); err != nil {
				return err
			}
		}
	}
	return nil
}

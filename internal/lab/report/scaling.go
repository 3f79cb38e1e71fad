package report

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
)

// procs is the GOMAXPROCS row r ran at: go test names a benchmark run at 1
// without the -N suffix.
func procs(r *benchcmp.Row) float64 {
	if _, ok := r.Param(gomaxprocs); !ok {
		return 1
	}
	return paramFloat(r, gomaxprocs)
}

// coresCharts: a scaling family's throughput against GOMAXPROCS, one line
// per implementation, one chart per measure of its primary question and
// combination of its other parameters. Throughput is ops/s (the inverse of
// time per op) or the benchmark's rate; where the family has a baseline it
// is divided by the baseline's at the fewest Ps, so one chart shows both
// how each implementation scales (along its line) and how it compares
// (between lines), and the baseline's own line starts at 1.
func (f *Family) coresCharts() []*chartSpec {
	g := f.Grid
	var specs []*chartSpec
	for _, unit := range f.Primary.units {
		throughput := func(r *benchcmp.Row, impl string) float64 {
			c := g.Cell(r, impl, unit)
			switch {
			case c == nil || c.Summary.Center <= 0 || math.IsNaN(c.Summary.Center):
				return math.NaN()
			case g.Better(unit) == benchcmp.HigherIsBetter:
				return c.Summary.Center
			}
			return 1 / c.Summary.Center
		}
		what := unit
		if g.Better(unit) != benchcmp.HigherIsBetter {
			what = "ops/s" // 1 ÷ time per op
		}
		for _, group := range groupBy(f.rowsOf(unit), gomaxprocs) {
			if len(specs) == maxChartsPerKind {
				return specs
			}
			rows := slices.SortedStableFunc(slices.Values(group.rows), func(a, b *benchcmp.Row) int { return cmp.Compare(procs(a), procs(b)) })
			// The title names the baseline: a rotated y label longer than
			// the plot is tall squeezes the plot.
			norm, y, of := 1.0, what, what
			if f.Baseline != "" {
				norm = throughput(rows[0], f.Baseline)
				if math.IsNaN(norm) {
					continue
				}
				y = "relative " + what
				of += " ÷ " + f.Baseline + "'s at " + strconv.FormatFloat(procs(rows[0]), 'f', -1, 64) + " P"
			}
			title := f.Name + ": " + of + " by GOMAXPROCS (higher is better)"
			if group.label != "" {
				title = f.Name + ", " + group.label + ": " + of + " by GOMAXPROCS"
			}
			s := newSpec("cores", title, "GOMAXPROCS", y)
			if f.Baseline == "" && g.Better(unit) == benchcmp.HigherIsBetter {
				s.yUnit = unit
			}
			var xs []float64
			lo, hi := math.Inf(1), 0.0
			for si, impl := range f.Impls {
				var pts plotter.XYs
				for _, r := range rows {
					if v := throughput(r, impl); !math.IsNaN(v) {
						pts = append(pts, plotter.XY{X: procs(r), Y: v / norm})
					}
				}
				if len(pts) < 2 {
					continue
				}
				for _, p := range pts {
					lo, hi = min(lo, p.Y), max(hi, p.Y)
					if !slices.Contains(xs, p.X) {
						xs = append(xs, p.X)
					}
				}
				if s.series(si, impl, pts) != nil {
					return specs
				}
			}
			if len(s.names) == 0 {
				continue
			}
			slices.Sort(xs)
			if hi/lo >= 100 {
				s.p.Y.Scale = plot.LogScale{}
				s.p.Y.Label.Text += " (log scale)"
			}
			// GOMAXPROCS doubles from point to point: equal steps.
			s.p.X.Scale = plot.LogScale{}
			s.p.X.Tick.Marker = valueTicks(xs)
			s.p.X.Min, s.p.X.Max = xs[0]/1.2, xs[len(xs)-1]*1.2
			specs = append(specs, s)
		}
	}
	return specs
}

// writeScaling writes the section of the families measured at several
// GOMAXPROCS: where each comes from, whether its code has moved on since,
// and its charts.
func (p *page) writeScaling(pr printer) {
	if len(p.scaling) == 0 {
		return
	}
	pr("<a id=\"scaling\"></a>\n## Scaling with cores\n\n")
	pr("Each family's contention benchmark at one size, run at every GOMAXPROCS (`make bench-scaling`): throughput " +
		"against the number of Ps, each implementation a line. Where the family has a baseline, throughput is divided " +
		"by the baseline's at the fewest Ps, so a line's rise is how that implementation scales and the gap between " +
		"lines is how it compares. These runs supply no table above: those compare implementations at one GOMAXPROCS " +
		"over the whole matrix.\n\n")
	for _, f := range p.scaling {
		var ps []string
		for _, r := range f.Rows {
			if v := strconv.FormatFloat(procs(r), 'f', -1, 64); !slices.Contains(ps, v) {
				ps = append(ps, v)
			}
		}
		pr("<a id=\"%s\"></a>\n### %s", f.anchor(), f.Name)
		if m := f.Stale.Mark(); m != "" {
			pr(" (%s)", m)
		}
		pr("\n\n%s at GOMAXPROCS %s. From %s (commit %s, %s), %s samples a point.", params(f.Rows, gomaxprocs), strings.Join(ps, ", "),
			sourceLink(f, false), code(shortSHA(f.Header["commit"])), strings.Trim(f.Header["cpu"], " "), samples(f))
		if why := f.Stale.Why(f.Header["commit"]); why != "" {
			pr(" %s", why)
		}
		pr("\n\n")
		p.writeCharts(pr, f)
	}
}

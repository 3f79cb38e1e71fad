package report

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/queuelab/queuelab/internal/benchcmp"
)

// Chart is one rendered chart.
type Chart struct {
	Title string
	// Path is the file name relative to the results directory
	// ("charts/workqueue-time.svg").
	Path string
	data []byte
}

// maxChartsPerKind bounds the per-family charts of one kind (one per
// combination of other parameters), so a wide matrix cannot flood the page.
const maxChartsPerKind = 4

// charts renders every chart the family's data supports: time per
// operation per implementation, throughput against goroutine count,
// latency percentiles and memory.
func (m *Model) charts(f *Family, format string) ([]Chart, error) {
	var out []Chart
	for _, kind := range []func(*Family) ([]*chartSpec, error){m.timeChart, m.scalingCharts, m.latencyCharts, m.memoryChart} {
		specs, err := kind(f)
		if err != nil {
			return nil, err
		}
		for i, s := range specs {
			name := slug(f.Name) + "-" + s.kind
			if len(specs) > 1 {
				name += "-" + strconv.Itoa(i+1)
			}
			data, err := s.render(format)
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", name, err)
			}
			out = append(out, Chart{Title: s.p.Title.Text, Path: "charts/" + name + "." + format, data: data})
		}
	}
	return out, nil
}

type chartSpec struct {
	kind string
	p    *plot.Plot
	w, h vg.Length
	// ratio marks a y axis of ratios, labelled as plain numbers.
	ratio bool
}

func (s *chartSpec) render(format string) ([]byte, error) {
	// Room above the data for the legend, which gonum draws inside the
	// plot area; and tick labels in SI units instead of 4.8e+07.
	if _, isLog := s.p.Y.Scale.(plot.LogScale); isLog {
		s.p.Y.Max *= 4
		s.p.Y.Tick.Marker = siTicks{plot.LogTicks{Prec: -1}}
	} else {
		s.p.Y.Min = min(0, s.p.Y.Min)
		s.p.Y.Max *= 1.5
		if !s.ratio {
			s.p.Y.Tick.Marker = siTicks{plot.DefaultTicks{}}
		}
	}
	wt, err := s.p.WriterTo(s.w, s.h, format)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// groupedBars draws one bar per (category, series): categories along x,
// series side by side in each.
func groupedBars(p *plot.Plot, categories, series []string, value func(cat, ser int) float64) error {
	const barWidth = 9
	for si, name := range series {
		vals := make(plotter.Values, len(categories))
		for ci := range categories {
			if v := value(ci, si); !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals[ci] = v
			}
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(barWidth))
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(si)
		bars.Offset = vg.Points(barWidth * (float64(si) - float64(len(series)-1)/2))
		p.Add(bars)
		p.Legend.Add(name, bars)
	}
	p.NominalX(categories...)
	longest := 0
	for _, c := range categories {
		longest = max(longest, len(c))
	}
	if len(categories) > 1 && longest*len(categories) > 60 {
		p.X.Tick.Label.Rotation = math.Pi / 10
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
	}
	return nil
}

// shortNumber drops trailing zeros of a scaled number: "48.00M" -> "48M".
func shortNumber(s string) string {
	end := strings.LastIndexAny(s, "0123456789") + 1
	num, suffix := s[:end], s[end:]
	if strings.Contains(num, ".") {
		num = strings.TrimSuffix(strings.TrimRight(num, "0"), ".")
	}
	return num + suffix
}

// siTicks relabels another ticker's labels in SI units ("48M", "100µ").
type siTicks struct{ plot.Ticker }

func (t siTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := t.Ticker.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = shortNumber(benchunit.Scale(ticks[i].Value, benchunit.Decimal))
		}
	}
	return ticks
}

func barsSize(categories, series int) (vg.Length, vg.Length) {
	w := max(16*vg.Centimeter, vg.Length(categories*max(series, 2))*0.5*vg.Centimeter+4*vg.Centimeter)
	return w, 10 * vg.Centimeter
}

// timeChart: sec/op per implementation per benchmark, relative to the
// baseline when there is one.
func (m *Model) timeChart(f *Family) ([]*chartSpec, error) {
	if !slices.Contains(f.Units, "sec/op") {
		return nil, nil
	}
	g := m.Grid
	cats := subs(f.Rows)
	if f.Baseline != "" && len(f.Impls) > 1 {
		p := newPlot(f.Name+": time per op relative to "+f.Baseline, "benchmark", "sec/op ÷ "+f.Baseline+" (lower is better)")
		series := f.Impls[1:]
		err := groupedBars(p, cats, series, func(ci, si int) float64 {
			if c := g.Compare(f.Rows[ci], "sec/op", benchcmp.PeerOf(series[si], f.Baseline), series[si]); c != nil {
				return c.Ratio
			}
			return math.NaN()
		})
		if err != nil {
			return nil, err
		}
		one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(cats)) - 0.5, Y: 1}})
		if err != nil {
			return nil, err
		}
		one.Color = color.Black
		one.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(one)
		p.Legend.Add(f.Baseline+" = 1", one)
		w, h := barsSize(len(cats), len(series))
		return []*chartSpec{{kind: "time", p: p, w: w, h: h, ratio: true}}, nil
	}
	p := newPlot(f.Name+": time per op", "benchmark", "ns/op (lower is better)")
	err := groupedBars(p, cats, f.Impls, func(ci, si int) float64 {
		if c := g.Cell(f.Rows[ci], f.Impls[si], "sec/op"); c != nil {
			return c.Summary.Center * 1e9
		}
		return math.NaN()
	})
	w, h := barsSize(len(cats), len(f.Impls))
	return []*chartSpec{{kind: "time", p: p, w: w, h: h}}, err
}

// scalingCharts: throughput against the goroutine-count parameter, one
// line per implementation, one chart per combination of the other
// parameters.
func (m *Model) scalingCharts(f *Family) ([]*chartSpec, error) {
	key, xs := numericParam(f.Rows, concurrencyKeys)
	if key == "" {
		return nil, nil
	}
	g := m.Grid
	unit, scale, label := "", 1.0, ""
	for _, u := range f.Units {
		if g.Better(u) == benchcmp.HigherIsBetter {
			unit, label = u, u
			break
		}
	}
	if unit == "" && slices.Contains(f.Units, "sec/op") {
		unit, scale, label = "sec/op", -1, "ops/s (1 / sec/op)"
	}
	if unit == "" {
		return nil, nil
	}
	var specs []*chartSpec
	for _, group := range groupBy(f.Rows, key) {
		if len(specs) == maxChartsPerKind {
			break
		}
		title := f.Name + ": " + label + " vs " + key
		if group.label != "" {
			title += " (" + group.label + ")"
		}
		p := newPlot(title, key, label+" (higher is better)")
		for si, impl := range f.Impls {
			var pts plotter.XYs
			for _, r := range group.rows {
				c := g.Cell(r, impl, unit)
				if c == nil || c.Summary.Center == 0 {
					continue
				}
				y := c.Summary.Center
				if scale < 0 {
					y = 1 / y
				}
				pts = append(pts, plotter.XY{X: paramFloat(r, key), Y: y})
			}
			if len(pts) == 0 {
				continue
			}
			slices.SortFunc(pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
			if err := addSeries(p, si, impl, pts); err != nil {
				return nil, err
			}
		}
		if xs[len(xs)-1]/xs[0] >= 8 && xs[0] > 0 {
			p.X.Scale = plot.LogScale{}
		}
		p.X.Tick.Marker = valueTicks(xs)
		specs = append(specs, &chartSpec{kind: "scaling", p: p, w: 16 * vg.Centimeter, h: 10 * vg.Centimeter})
	}
	return specs, nil
}

// latencyCharts: percentile latency per implementation, log scale, one
// chart per benchmark (scenario).
func (m *Model) latencyCharts(f *Family) ([]*chartSpec, error) {
	var units, names []string
	for _, u := range f.Units {
		if name, ok := percentile(u); ok {
			units, names = append(units, u), append(names, name)
		}
	}
	if len(units) < 2 {
		return nil, nil
	}
	idx := make([]int, len(units))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(percentileOrder(names[a]), percentileOrder(names[b])) })
	g := m.Grid
	var specs []*chartSpec
	for _, r := range f.Rows {
		if len(specs) == maxChartsPerKind {
			break
		}
		p := newPlot(f.Name+": latency percentiles, "+r.Sub(), "percentile", "latency (ns, log scale, lower is better)")
		p.Y.Scale = plot.LogScale{}
		labels := make([]string, len(idx))
		for x, i := range idx {
			labels[x] = names[i]
		}
		drawn := 0
		for si, impl := range f.Impls {
			var pts plotter.XYs
			for x, i := range idx {
				if c := g.Cell(r, impl, units[i]); c != nil && c.Summary.Center > 0 {
					pts = append(pts, plotter.XY{X: float64(x), Y: toNanos(c.Summary.Center, units[i])})
				}
			}
			if len(pts) == 0 {
				continue
			}
			if err := addSeries(p, si, impl, pts); err != nil {
				return nil, err
			}
			drawn++
		}
		if drawn == 0 {
			continue
		}
		p.NominalX(labels...)
		specs = append(specs, &chartSpec{kind: "latency", p: p, w: 16 * vg.Centimeter, h: 10 * vg.Centimeter})
	}
	return specs, nil
}

// addSeries draws pts as the si-th line-and-points series, named name.
func addSeries(p *plot.Plot, si int, name string, pts plotter.XYs) error {
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.Color, points.Color = plotutil.Color(si), plotutil.Color(si)
	points.Shape = plotutil.Shape(si)
	p.Add(line, points)
	p.Legend.Add(name, line, points)
	return nil
}

// toNanos converts a latency in unit (p99_ns, or p99_sec if a tool wrote
// seconds) to nanoseconds.
func toNanos(v float64, unit string) float64 {
	if strings.HasSuffix(unit, "sec") {
		return v * 1e9
	}
	return v
}

// memoryChart: memory units other than B/op (peak heap, bytes per object)
// per implementation per benchmark.
func (m *Model) memoryChart(f *Family) ([]*chartSpec, error) {
	var specs []*chartSpec
	for _, u := range f.Units {
		if !isMemory(u) || u == "B/op" || len(specs) == maxChartsPerKind {
			continue
		}
		p := newPlot(f.Name+": "+u+" per implementation", "benchmark", u+" (MiB, lower is better)")
		cats := subs(f.Rows)
		err := groupedBars(p, cats, f.Impls, func(ci, si int) float64 {
			if c := m.Grid.Cell(f.Rows[ci], f.Impls[si], u); c != nil {
				return c.Summary.Center / (1 << 20)
			}
			return math.NaN()
		})
		if err != nil {
			return nil, err
		}
		w, h := barsSize(len(cats), len(f.Impls))
		specs = append(specs, &chartSpec{kind: "memory-" + slug(u), p: p, w: w, h: h})
	}
	return specs, nil
}

type rowGroup struct {
	label string
	rows  []*benchcmp.Row
}

// groupBy groups rows by every parameter except key and the parameters
// that move in lockstep with it (consumers=8 whenever producers=8), so
// each group is one line over key.
func groupBy(rows []*benchcmp.Row, key string) []rowGroup {
	lockstep := func(other string) bool {
		seen := make(map[string]string)
		for _, r := range rows {
			k, _ := r.Param(key)
			v, _ := r.Param(other)
			if prev, ok := seen[k]; ok && prev != v {
				return false
			}
			seen[k] = v
		}
		return true
	}
	var groups []rowGroup
	for _, r := range rows {
		var parts []string
		for _, prm := range r.Params {
			if prm.Key != key && !lockstep(prm.Key) {
				parts = append(parts, prm.Key+"="+prm.Value)
			}
		}
		label := strings.Join(parts, " ")
		i := slices.IndexFunc(groups, func(g rowGroup) bool { return g.label == label })
		if i < 0 {
			groups = append(groups, rowGroup{label: label})
			i = len(groups) - 1
		}
		groups[i].rows = append(groups[i].rows, r)
	}
	return groups
}

// valueTicks labels exactly the measured x values.
func valueTicks(xs []float64) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(xs))
	for i, x := range xs {
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)}
	}
	return ticks
}

func subs(rows []*benchcmp.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Sub()
	}
	return out
}

func slug(s string) string {
	s = strings.ToLower(s)
	return strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, s), "-")
}

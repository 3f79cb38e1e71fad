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

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
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
const maxChartsPerKind = 6

// Layout of every chart. Text is measured with Liberation Sans, whose
// widths are Arial's and Helvetica's; a viewer without any of them falls
// back to a wider sans (rsvg-convert with only DejaVu Sans runs titles
// about a quarter wider), so every measured width is given slack, and
// nothing is drawn where a wider rendering could run off the canvas or over
// other text: titles span the whole canvas, the legend has its own column
// right of the plot, and category labels are stacked one parameter a line
// instead of rotated.
const (
	slack     = 1.35
	pad       = vg.Length(8)
	titleSize = vg.Length(13)
	labelSize = vg.Length(11)
	tickSize  = vg.Length(10)
)

// sans is the charts' font, and svgFamily what an SVG asks a viewer for:
// the font itself, then fonts of the same widths, then any sans.
var (
	sans      = font.Font{Typeface: "Liberation", Variant: "Sans"}
	svgFamily = []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
)

func style(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: font.From(sans, size), XAlign: draw.XLeft, YAlign: draw.YBottom,
		Handler: plot.DefaultTextHandler}
}

// width is how wide s may render, slack included.
func width(sty text.Style, s string) vg.Length { return sty.Width(s) * slack }

// charts renders every chart f's data supports: time per op per
// implementation, rates against goroutine counts, latency percentiles and
// memory held.
func (f *Family) charts(format string) ([]Chart, error) {
	var out []Chart
	kinds := []func() []*chartSpec{f.timeChart, f.scalingCharts, f.latencyCharts, f.memoryChart}
	if f.Scaling {
		kinds = []func() []*chartSpec{f.coresCharts}
	}
	for _, kind := range kinds {
		specs := kind()
		for i, s := range specs {
			name := slug(f.Name) + "-" + s.kind
			if len(specs) > 1 {
				name += "-" + strconv.Itoa(i+1)
			}
			data, err := s.render(format)
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", name, err)
			}
			out = append(out, Chart{Title: s.title, Path: "charts/" + name + "." + format, data: data})
		}
	}
	return out, nil
}

// chartSpec is a chart before layout: a plot with its axes and data, the
// title and legend drawn around it, and the width its categories need.
type chartSpec struct {
	kind, title string
	p           *plot.Plot
	legend      plot.Legend
	// minPlotW is the narrowest plot area its x labels fit in.
	minPlotW vg.Length
	// yUnit formats the y ticks in human units ("" for plain numbers).
	yUnit string
	names []string // the legend's entries
}

func newSpec(kind, title, x, y string) *chartSpec {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = x, y
	for _, sty := range []*text.Style{&p.X.Label.TextStyle, &p.Y.Label.TextStyle} {
		sty.Font = font.From(sans, labelSize)
	}
	for _, sty := range []*text.Style{&p.X.Tick.Label, &p.Y.Tick.Label} {
		sty.Font = font.From(sans, tickSize)
	}
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	leg.TextStyle = style(labelSize)
	leg.Left, leg.Top = true, true
	leg.Padding = vg.Length(3)
	return &chartSpec{kind: kind, title: title, p: p, legend: leg, minPlotW: 12 * vg.Centimeter}
}

func (s *chartSpec) render(format string) ([]byte, error) {
	if _, isLog := s.p.Y.Scale.(plot.LogScale); isLog {
		s.p.Y.Tick.Marker = humanTicks{plot.LogTicks{Prec: -1}, s.yUnit}
	} else {
		s.p.Y.Min = min(0, s.p.Y.Min)
		s.p.Y.Max *= 1.1
		s.p.Y.Tick.Marker = humanTicks{plot.DefaultTicks{}, s.yUnit}
	}
	titleSty := style(titleSize)
	var legendW vg.Length
	for _, e := range s.legendTexts() {
		legendW = max(legendW, width(s.legend.TextStyle, e))
	}
	if legendW > 0 {
		legendW += s.legend.ThumbnailWidth + 3*pad
	}
	// The y axis: its label, the widest tick label and the tick marks.
	tickW := s.p.Y.Tick.Label.Width(s.widestYTick())
	s.p.Y.Label.Padding = tickW*(slack-1) + pad/2
	yAxisW := 3*labelSize + tickW*slack + 2*pad
	w := max(16*vg.Centimeter, yAxisW+s.minPlotW+legendW+2*pad, width(titleSty, s.title)+4*pad)
	titleH := titleSty.Height(s.title)
	h := max(10*vg.Centimeter, titleH+vg.Length(len(s.legendTexts()))*labelSize*1.6+6*pad)
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	titleSty.XAlign, titleSty.YAlign = draw.XCenter, draw.YTop
	dc.FillText(titleSty, vg.Point{X: w / 2, Y: h - pad}, s.title)
	top := titleH + 3*pad
	s.p.Draw(draw.Crop(dc, pad, -(legendW + pad), pad, -top))
	if legendW > 0 {
		s.legend.Draw(draw.Crop(dc, w-legendW+pad, -pad, pad, -top))
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	if format == "svg" {
		return bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"), svgFamily), nil
	}
	return b.Bytes(), nil
}

func (s *chartSpec) legendTexts() []string { return s.names }

// add draws thumbs for a series in the legend, named name.
func (s *chartSpec) add(name string, thumbs ...plot.Thumbnailer) {
	s.legend.Add(name, thumbs...)
	s.names = append(s.names, name)
}

// widestYTick is the longest y tick label the axis will show.
func (s *chartSpec) widestYTick() string {
	long := ""
	for _, t := range s.p.Y.Tick.Marker.Ticks(s.p.Y.Min, s.p.Y.Max) {
		if len(t.Label) > len(long) {
			long = t.Label
		}
	}
	return long
}

// humanTicks relabels another ticker's labels in human units ("10 ms",
// "64 MiB", "300k/s") or, without a unit, as plain numbers.
type humanTicks struct {
	plot.Ticker
	unit string
}

func (t humanTicks) Ticks(lo, hi float64) []plot.Tick {
	// Bytes tick at round numbers of KiB, MiB or GiB, not of powers of ten
	// ("2 MiB", not "1.91 MiB").
	scale := 1.0
	if _, isLog := t.Ticker.(plot.LogTicks); isMemory(t.unit) && !isLog {
		for max(math.Abs(lo), math.Abs(hi))/scale >= 1024 {
			scale *= 1024
		}
	}
	ticks := t.Ticker.Ticks(lo/scale, hi/scale)
	for i := range ticks {
		ticks[i].Value *= scale
	}
	// A log axis labels only powers of ten; one whose range holds none
	// (10 ms to 90 ms) would have no numbers at all, so label its minor
	// ticks instead.
	// (LogTicks returns the decades around the range too, which the axis
	// clips, so only labels inside [lo, hi] count.)
	if !slices.ContainsFunc(ticks, func(tk plot.Tick) bool { return tk.Label != "" && tk.Value >= lo && tk.Value <= hi }) {
		for i := range ticks {
			ticks[i].Label = "x" // relabelled in human units below
		}
	}
	for i := range ticks {
		if ticks[i].Label == "" {
			continue
		}
		if t.unit == "" {
			ticks[i].Label = strconv.FormatFloat(math.Round(ticks[i].Value*1000)/1000, 'f', -1, 64)
		} else {
			ticks[i].Label = benchcmp.Human(ticks[i].Value, t.unit)
		}
	}
	return ticks
}

// groupedBars draws one bar per (category, series): categories along x,
// labelled one parameter a line, series side by side in each.
func (s *chartSpec) groupedBars(rows []*benchcmp.Row, series []string, value func(r *benchcmp.Row, ser string) float64) error {
	cats := categories(rows)
	var lineW vg.Length
	for _, c := range cats {
		for _, l := range strings.Split(c, "\n") {
			lineW = max(lineW, width(s.p.X.Tick.Label, l))
		}
	}
	// A series with no value in any row gets neither a slot nor a legend
	// entry: a legend must not name bars that are not there.
	var names []string
	var values []plotter.Values
	for _, name := range series {
		vals := make(plotter.Values, len(rows))
		some := false
		for ci, r := range rows {
			if v := value(r, name); !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals[ci], some = v, true
			}
		}
		if some {
			names, values = append(names, name), append(values, vals)
		}
	}
	barW := vg.Length(9)
	catW := max(lineW+pad, barW*vg.Length(len(names))+2*pad)
	s.minPlotW = max(s.minPlotW, catW*vg.Length(len(cats)))
	for si, name := range names {
		bars, err := plotter.NewBarChart(values[si], barW)
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = colour(si)
		bars.Offset = barW * vg.Length(float64(si)-float64(len(names)-1)/2)
		s.p.Add(bars)
		s.add(name, bars)
	}
	s.p.NominalX(cats...)
	return nil
}

// categories labels rows by the parameters that tell them apart, one
// key=value a line: what every row shares says nothing.
func categories(rows []*benchcmp.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		var parts []string
		for _, prm := range r.Params {
			if slices.ContainsFunc(rows, func(o *benchcmp.Row) bool { v, _ := o.Param(prm.Key); return v != prm.Value }) {
				parts = append(parts, strings.TrimPrefix(prm.Key+"="+prm.Value, "="))
			}
		}
		if len(parts) == 0 {
			parts = []string{label(r, rows)}
		}
		out[i] = strings.Join(parts, "\n")
	}
	return out
}

// timeChart: time per op of every implementation divided by its
// baseline's, or medians when the family has no baseline.
func (f *Family) timeChart() []*chartSpec {
	rows := f.rowsOf("sec/op")
	if len(rows) == 0 {
		return nil
	}
	g := f.Grid
	if f.Baseline != "" && len(f.Impls) > 1 {
		var specs []*chartSpec
		for _, group := range peerGroups(f) {
			series := slices.DeleteFunc(slices.Clone(group), func(c string) bool { return benchcmp.PeerOf(c, f.Baseline) == c })
			peer := benchcmp.PeerOf(group[0], f.Baseline)
			rows := slices.DeleteFunc(slices.Clone(rows), func(r *benchcmp.Row) bool {
				return !slices.ContainsFunc(series, func(c string) bool { return g.Compare(r, "sec/op", peer, c) != nil })
			})
			if len(series) == 0 || len(rows) == 0 || len(specs) == maxChartsPerKind {
				continue
			}
			s := newSpec("time", f.Name+": time per op ÷ "+peer+" (lower is better)", "", "time ÷ "+peer)
			err := s.groupedBars(rows, series, func(r *benchcmp.Row, impl string) float64 {
				if c := g.Compare(r, "sec/op", peer, impl); c != nil {
					return c.Ratio
				}
				return math.NaN()
			})
			if err != nil {
				return nil
			}
			one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(rows)) - 0.5, Y: 1}})
			if err != nil {
				return nil
			}
			one.Color = color.Black
			one.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			s.p.Add(one)
			s.add(peer+" = 1", one)
			specs = append(specs, s)
		}
		return specs
	}
	s := newSpec("time", f.Name+": time per op (lower is better)", "", "time per op")
	s.yUnit = "sec/op"
	if s.groupedBars(rows, f.Impls, func(r *benchcmp.Row, impl string) float64 {
		if c := g.Cell(r, impl, "sec/op"); c != nil {
			return c.Summary.Center
		}
		return math.NaN()
	}) != nil {
		return nil
	}
	return []*chartSpec{s}
}

// scalingCharts: each rate against the goroutine-count parameter, one
// line per implementation, one chart per rate and combination of the
// other parameters.
func (f *Family) scalingCharts() []*chartSpec {
	key, xs := numericParam(f.Primary.rows, concurrencyKeys)
	if key == "" {
		return nil
	}
	g := f.Grid
	var specs []*chartSpec
	for _, unit := range f.Units {
		if g.Better(unit) != benchcmp.HigherIsBetter {
			continue
		}
		rows := slices.DeleteFunc(f.rowsOf(unit), func(r *benchcmp.Row) bool { _, ok := r.Param(key); return !ok })
		for _, group := range groupBy(rows, key) {
			if len(specs) == maxChartsPerKind {
				return specs
			}
			title := f.Name + ": " + unit + " by " + key + " (higher is better)"
			if group.label != "" {
				title = f.Name + ", " + group.label + ": " + unit + " by " + key
			}
			s := newSpec("scaling", title, key, unit)
			s.yUnit = unit
			lo, hi := math.Inf(1), 0.0
			for si, impl := range f.Impls {
				var pts plotter.XYs
				for _, r := range group.rows {
					if c := g.Cell(r, impl, unit); c != nil && c.Summary.Center > 0 {
						pts = append(pts, plotter.XY{X: paramFloat(r, key), Y: c.Summary.Center})
					}
				}
				if len(pts) < 2 {
					continue
				}
				for _, p := range pts {
					lo, hi = min(lo, p.Y), max(hi, p.Y)
				}
				slices.SortFunc(pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
				if s.series(si, impl, pts) != nil {
					return specs
				}
			}
			if len(s.names) == 0 {
				continue
			}
			// Rates a hundredfold apart (a starved writer beside a free
			// one) would flatten the smaller onto the axis.
			if hi/lo >= 100 {
				s.p.Y.Scale = plot.LogScale{}
				s.p.Y.Label.Text += " (log scale)"
			}
			if xs[len(xs)-1]/max(xs[0], 1) >= 8 && xs[0] > 0 {
				s.p.X.Scale = plot.LogScale{}
			}
			s.p.X.Tick.Marker = valueTicks(xs)
			specs = append(specs, s)
		}
	}
	return specs
}

// latencyCharts: percentile latency per implementation, log scale, one
// chart per benchmark (scenario).
func (f *Family) latencyCharts() []*chartSpec {
	var units, names []string
	for _, u := range f.Units {
		if name, ok := percentile(u); ok {
			units, names = append(units, u), append(names, name)
		}
	}
	if len(units) < 2 {
		return nil
	}
	idx := make([]int, len(units))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(percentileOrder(names[a]), percentileOrder(names[b])) })
	units, names = permute(units, idx), permute(names, idx)
	g := f.Grid
	var specs []*chartSpec
	for _, r := range f.rowsOf(units...) {
		if len(specs) == maxChartsPerKind {
			break
		}
		s := newSpec("latency", f.Name+", "+strings.Join(categoryParts(r, f.Rows), " ")+": latency (lower is better)",
			"percentile", "latency (log scale)")
		s.yUnit = units[0]
		s.p.Y.Scale = plot.LogScale{}
		for si, impl := range f.Impls {
			var pts plotter.XYs
			for x, u := range units {
				if c := g.Cell(r, impl, u); c != nil && c.Summary.Center > 0 {
					pts = append(pts, plotter.XY{X: float64(x), Y: c.Summary.Center})
				}
			}
			if len(pts) > 0 && s.series(si, impl, pts) != nil {
				return specs
			}
		}
		if len(s.names) == 0 {
			continue
		}
		s.p.NominalX(names...)
		specs = append(specs, s)
	}
	return specs
}

// categoryParts are the parameters of r that tell it apart from rows.
func categoryParts(r *benchcmp.Row, rows []*benchcmp.Row) []string {
	return strings.Split(categories(append([]*benchcmp.Row{r}, slices.DeleteFunc(slices.Clone(rows), func(o *benchcmp.Row) bool { return o == r })...))[0], "\n")
}

// series draws pts as the si-th line-and-points series, named name.
func (s *chartSpec) series(si int, name string, pts plotter.XYs) error {
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.Color, points.Color = colour(si), colour(si)
	points.Shape = plotutil.Shape(si)
	s.p.Add(line, points)
	s.add(name, line, points)
	return nil
}

// memoryChart: the memory a structure holds, per implementation and
// benchmark; one chart per baseline peer (all-baseline combination), so
// that a load run's workqueue, store and informer stacks each get their
// own colours.
func (f *Family) memoryChart() []*chartSpec {
	u := f.heldUnit()
	if u == "" {
		return nil
	}
	var specs []*chartSpec
	for _, impls := range peerGroups(f) {
		rows := slices.DeleteFunc(f.rowsOf(u), func(r *benchcmp.Row) bool {
			return !slices.ContainsFunc(impls, func(c string) bool { return f.Grid.Cell(r, c, u) != nil })
		})
		if len(rows) == 0 || len(specs) == maxChartsPerKind {
			continue
		}
		s := newSpec("memory-"+slug(u), f.Name+": "+heldLabel(u)+" (lower is better)", "", heldLabel(u))
		s.yUnit = u
		err := s.groupedBars(rows, impls, func(r *benchcmp.Row, impl string) float64 {
			if c := f.Grid.Cell(r, impl, u); c != nil {
				return c.Summary.Center
			}
			return math.NaN()
		})
		if err == nil && len(s.names) > 0 {
			specs = append(specs, s)
		}
	}
	return specs
}

// peerGroups splits f's implementations by the baseline combination they
// are compared to, baseline first in each: a load run's workqueue, store
// and informer stacks, which no benchmark measures side by side. An
// implementation whose combination was not measured (a controller stack
// of three parts next to the two-part stock stack) joins the first group
// rather than charting alone without a baseline.
func peerGroups(f *Family) [][]string {
	var peers []string
	var out [][]string
	for _, impl := range f.Impls {
		p := benchcmp.PeerOf(impl, f.Baseline)
		if !slices.Contains(f.Impls, p) && len(peers) > 0 {
			p = peers[0]
		}
		i := slices.Index(peers, p)
		if i < 0 {
			peers, out = append(peers, p), append(out, nil)
			i = len(out) - 1
		}
		out[i] = append(out[i], impl)
	}
	return out
}

// palette has a colour for each of ten series, told apart in print and by
// most colour-blind readers (Tableau 10).
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

func colour(i int) color.Color { return palette[i%len(palette)] }

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
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)}
	}
	return ticks
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

func permute(ss []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = ss[j]
	}
	return out
}

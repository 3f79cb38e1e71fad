// Package report turns raw benchmark files into the lab's published
// results: a generated results/README.md (the headline, "which one should
// I use", per-family tables of ratios to client-go and charts rendered
// with gonum.org/v1/plot) and the headline table spliced into the
// top-level README.
//
// Everything is discovered from the data: families are top-level benchmark
// names, implementations are the values of the impl key, parameters are the
// other keys, and each family's numbers come from the newest raw file that
// measured it, so a run of one family never hides the others. No family,
// benchmark or implementation is named in this package: a benchmark that
// measures windows or whole runs rather than operations says so by
// suppressing ns/op (b.ReportMetric(0, "ns/op")), and is then read by its
// rates. The same input always produces the same bytes, so a stale
// committed report is detectable.
package report

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
)

// Family is one top-level benchmark and everything measured under it, from
// one raw file.
type Family struct {
	Name string
	// Grid holds the family's numbers; Source is the raw file they come
	// from and Header what that file says about its run.
	Grid   *benchcmp.Grid
	Source string
	Header map[string]string
	// pageSrc and topSrc are Source relative to the results page and to
	// the top-level README.
	pageSrc, topSrc string
	Rows            []*benchcmp.Row
	// Impls are the implementations measured, the baseline first.
	Impls []string
	// Baseline is the implementation ratios are taken against: the
	// baseline name itself, or for composed implementations ("store+fifo+
	// workq" in load runs) the combination made only of it; "" when the
	// family has none, in which case the report shows medians only.
	Baseline string
	// Units are the metrics in presentation order: time first, then rates,
	// then the rest, then allocation.
	Units []string
	// Primary is the question that ranks implementations: time per op
	// where the family's benchmarks measure operations, else its rates.
	Primary question
	// Scaling marks a family measured at several GOMAXPROCS: charted by
	// core count in a section of its own, not tabled.
	Scaling bool
	// Stale says whether its code changed after its raw file's commit.
	Stale Staleness
}

// key names f among the page's charts: a family and its scaling
// measurement are charted apart.
func (f *Family) key() string {
	if f.Scaling {
		return f.Name + " (scaling)"
	}
	return f.Name
}

// anchor is the id of f's section on the results page.
func (f *Family) anchor() string {
	if f.Scaling {
		return "scaling-" + slug(f.Name)
	}
	return anchor(f.Name)
}

// question is what one table answers: some units over some rows, all in
// one direction.
type question struct {
	title string
	units []string
	rows  []*benchcmp.Row
}

// timed reports whether row r measures operations: go test printed its
// ns/op. A benchmark that measures windows or whole runs suppresses ns/op,
// and then its B/op and allocs/op, divided by a b.N that counts no
// operations, measure nothing either.
func timed(g *benchcmp.Grid, r *benchcmp.Row) bool {
	return len(g.ColumnsOf([]*benchcmp.Row{r}, "sec/op")) > 0
}

// measures reports whether unit on row r measures the implementations.
func measures(g *benchcmp.Grid, r *benchcmp.Row, unit string) bool {
	return len(g.ColumnsOf([]*benchcmp.Row{r}, unit)) > 0 && (!strings.HasSuffix(unit, "/op") || timed(g, r))
}

// rowsOf returns the rows of f on which any of units measures the
// implementations.
func (f *Family) rowsOf(units ...string) []*benchcmp.Row {
	var out []*benchcmp.Row
	for _, r := range f.Rows {
		if slices.ContainsFunc(units, func(u string) bool { return measures(f.Grid, r, u) }) {
			out = append(out, r)
		}
	}
	return out
}

func newFamily(g *benchcmp.Grid, name, source string, header map[string]string, baseline string) *Family {
	f := &Family{Name: name, Grid: g, Source: source, Header: header, Rows: g.RowsOf(name)}
	for _, u := range orderUnits(g.UnitsOf(f.Rows)) {
		if len(f.rowsOf(u)) > 0 {
			f.Units = append(f.Units, u)
		}
	}
	var impls []string
	for _, u := range f.Units {
		for _, c := range g.ColumnsOf(f.Rows, u) {
			if !slices.Contains(impls, c) {
				impls = append(impls, c)
			}
		}
	}
	f.Baseline = benchcmp.BaselineOf(impls, baseline)
	if f.Baseline != "" {
		impls = append([]string{f.Baseline}, slices.DeleteFunc(impls, func(s string) bool { return s == f.Baseline })...)
	}
	f.Impls = impls
	f.Primary = f.primary()
	f.Scaling = slices.ContainsFunc(f.Rows, func(r *benchcmp.Row) bool { return procs(r) != procs(f.Rows[0]) })
	return f
}

// primary is time per op where the family measures operations, else every
// rate it reports (a contention benchmark's reads/s and writes/s together).
func (f *Family) primary() question {
	if rows := f.rowsOf("sec/op"); len(rows) > 0 {
		return question{title: "time per op", units: []string{"sec/op"}, rows: rows}
	}
	var rates []string
	for _, u := range f.Units {
		if f.Grid.Better(u) == benchcmp.HigherIsBetter {
			rates = append(rates, u)
		}
	}
	return question{title: strings.Join(rates, " and "), units: rates, rows: f.rowsOf(rates...)}
}

// questions are the tables of a family, each in one direction: time per
// op; the rates of the benchmarks that measure windows or runs (where time
// per op is measured, a rate beside it says the same again); the p99
// latency where no chart shows it; the memory an op allocates; the memory
// a structure holds.
func (f *Family) questions() []question {
	var out []question
	if rows := f.rowsOf("sec/op"); len(rows) > 0 {
		out = append(out, question{title: "Time per op", units: []string{"sec/op"}, rows: rows})
	}
	var rates []string
	var untimed []*benchcmp.Row
	for _, u := range f.Units {
		if f.Grid.Better(u) == benchcmp.HigherIsBetter {
			rates = append(rates, u)
		}
	}
	for _, r := range f.rowsOf(rates...) {
		if !timed(f.Grid, r) {
			untimed = append(untimed, r)
		}
	}
	if len(untimed) > 0 {
		out = append(out, question{title: "Rates, " + strings.Join(rates, " · "), units: rates, rows: untimed})
	}
	var percentiles []string
	for _, u := range f.Units {
		if _, ok := percentile(u); ok {
			percentiles = append(percentiles, u)
		}
	}
	for _, u := range percentiles {
		// Latency charts show every percentile of up to maxChartsPerKind
		// benchmarks; a table repeats them only where they do not.
		if p, _ := percentile(u); p == "p99" && (len(percentiles) < 2 || len(f.rowsOf(percentiles...)) > maxChartsPerKind) {
			out = append(out, question{title: "p99 latency", units: []string{u}, rows: f.rowsOf(u)})
		}
	}
	if rows := f.rowsOf("B/op", "allocs/op"); len(rows) > 0 {
		out = append(out, question{title: "Memory allocated per op (B/op · allocs/op)", units: []string{"B/op", "allocs/op"}, rows: rows})
	}
	if u := f.heldUnit(); u != "" {
		out = append(out, question{title: "Memory held, " + heldLabel(u), units: []string{u}, rows: f.rowsOf(u)})
	}
	return out
}

// heldLabel names a held-memory unit in words for titles and axes, where
// the raw benchmark unit ("peak-heap-B") would read as a variable name.
func heldLabel(u string) string {
	switch u {
	case "peak-heap-B":
		return "peak heap"
	case "peak-rss-B":
		return "peak RSS"
	case "B/obj":
		return "bytes held per object"
	}
	return u
}

// heldUnit is the unit of memory a structure holds rather than allocates
// per op: peak heap, else bytes retained per object, else any other bytes.
func (f *Family) heldUnit() string {
	for _, pref := range []string{"peak-heap-B", "B/obj"} {
		if slices.Contains(f.Units, pref) {
			return pref
		}
	}
	for _, u := range f.Units {
		if isMemory(u) && !strings.HasSuffix(u, "/op") {
			return u
		}
	}
	return ""
}

func unitRank(u string) int {
	switch {
	case u == "sec/op":
		return 0
	case strings.HasSuffix(u, "/s"):
		return 1
	case u == "B/op":
		return 3
	case u == "allocs/op":
		return 4
	}
	return 2
}

// orderUnits sorts time first, then rates, then other metrics (latency
// percentiles in percentile order), then B/op and allocs/op.
func orderUnits(units []string) []string {
	out := slices.Clone(units)
	slices.SortStableFunc(out, func(a, b string) int {
		if c := cmp.Compare(unitRank(a), unitRank(b)); c != 0 {
			return c
		}
		pa, aok := percentile(a)
		pb, bok := percentile(b)
		if aok && bok {
			return cmp.Compare(percentileOrder(pa), percentileOrder(pb))
		}
		return 0
	})
	return out
}

// percentileOrder places "p50" < "p90" < "p99" < "p999" < "max".
func percentileOrder(name string) float64 {
	if name == "max" {
		return math.Inf(1)
	}
	digits := strings.TrimPrefix(name, "p")
	v, _ := strconv.ParseFloat(digits, 64)
	return v / math.Pow(10, float64(len(digits)))
}

// concurrencyKeys name parameters that count goroutines or Ps, in the order
// the report prefers them as the x axis of scaling charts.
var concurrencyKeys = []string{"producers", "workers", "consumers", "goroutines", "writers", "readers", "threads", gomaxprocs}

// gomaxprocs is the parameter benchcmp makes of a name's "-N" suffix.
const gomaxprocs = "gomaxprocs"

// sizeKeys name parameters that size the data set.
var sizeKeys = []string{"keys", "objects", "items", "size", "n"}

// numericParam returns the first of keys that takes at least two distinct
// numeric values over rows, with its sorted values.
func numericParam(rows []*benchcmp.Row, keys []string) (string, []float64) {
	for _, k := range keys {
		var vals []float64
		ok := true
		for _, r := range rows {
			s, present := r.Param(k)
			if !present {
				ok = false
				break
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				ok = false
				break
			}
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if ok && len(vals) >= 2 {
			slices.Sort(vals)
			return k, vals
		}
	}
	return "", nil
}

func paramFloat(r *benchcmp.Row, key string) float64 {
	s, _ := r.Param(key)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

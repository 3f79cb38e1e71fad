package benchcmp

import (
	"fmt"
	"math"
	"path"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// ImplKey is the sub-benchmark key that names the implementation.
const ImplKey = "impl"

// Column projections for Group.
const (
	// ByImpl puts each implementation in its own column: the lab's
	// standard claim, every implementation against the baseline of the
	// same run.
	ByImpl = "/" + ImplKey
	// ByFile puts each input file in its own column: old versus new.
	ByFile = ".file"
)

// Param is one key=value part of a benchmark name. GOMAXPROCS (the "-N"
// suffix) appears as key "gomaxprocs".
type Param struct{ Key, Value string }

// Row is one benchmark, named by everything but the column key.
type Row struct {
	// Pkg is the import path of the package that ran the benchmark ("" when
	// the file does not say, as for load generator output).
	Pkg string
	// Base is the top-level benchmark name, e.g. "BenchmarkWorkQueue".
	Base string
	// Family groups rows in tables and charts: Base, qualified with the
	// package's last path element ("deque.BenchmarkPushPop") when two
	// packages define a benchmark of the same name.
	Family string
	// Name is the full name without the column key, e.g.
	// "BenchmarkWorkQueue/op=add/keys=1024-2".
	Name string
	// Params are the parts of Name after Family, in order.
	Params []Param
}

// Param returns the value of key in the row's name, and whether it is there.
func (r *Row) Param(key string) (string, bool) {
	for _, p := range r.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// Sub is the row's name without the family: "op=add/keys=1024-2", or
// "(all)-2" for a benchmark without sub-benchmarks.
func (r *Row) Sub() string {
	s := strings.TrimPrefix(r.Name, r.Base)
	if s == "" || s[0] == '-' {
		return "(all)" + s
	}
	return s[1:]
}

// Label is the row's name with its family, package-qualified where two
// packages share a benchmark name: "deque.PushPop-2".
func (r *Row) Label() string { return r.Family + strings.TrimPrefix(r.Name, r.Base) }

// Cell is the sample of one row, one column and one unit.
type Cell struct {
	Sample  *benchmath.Sample
	Summary benchmath.Summary
}

// N is the number of measurements.
func (c *Cell) N() int { return len(c.Sample.Values) }

// Options tune the statistics. The zero value means benchstat's defaults.
type Options struct {
	// Alpha is the significance level of the U test (default 0.05).
	Alpha float64
	// Confidence is the level of confidence intervals (default 0.95).
	Confidence float64
	// Filter, if set, is a benchproc filter expression selecting results
	// (e.g. ".name:BenchmarkWorkQueue /keys:1024").
	Filter string
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = benchmath.DefaultThresholds.CompareAlpha
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	return o
}

// Grid is benchmark data grouped into rows, columns and units.
type Grid struct {
	// Columns are the column labels in the order first seen (an
	// implementation name, a file label, or "" for results without the
	// column key).
	Columns []string
	// Units are the tidied units in the order first seen.
	Units []string
	// Rows are the benchmarks in the order first seen.
	Rows []*Row

	units benchfmt.UnitMetadataMap
	opts  Options
	cells map[cellKey]*Cell
}

type cellKey struct {
	row       *Row
	col, unit string
}

// Cell returns the sample of row, col and unit, or nil if none was measured.
func (g *Grid) Cell(row *Row, col, unit string) *Cell { return g.cells[cellKey{row, col, unit}] }

// Better is the direction of unit, from the files' unit metadata and the
// lab's conventions.
func (g *Grid) Better(unit string) Direction { return Better(g.units, unit) }

// Group groups d into a grid whose columns are given by the benchproc
// projection col (ByImpl or ByFile) and whose rows are the package plus the
// full benchmark name with the column key removed, as benchstat does with
// "-row .fullname -col /impl".
func (d *Data) Group(col string, opts Options) (*Grid, error) {
	opts = opts.withDefaults()
	filter, err := benchproc.NewFilter(orAll(opts.Filter))
	if err != nil {
		return nil, fmt.Errorf("filter: %w", err)
	}
	var parser benchproc.ProjectionParser
	colProj, err := parser.Parse(col, filter)
	if err != nil {
		return nil, fmt.Errorf("column projection %q: %w", col, err)
	}
	rowProj, unitField, err := parser.ParseWithUnit("pkg,.fullname", filter)
	if err != nil {
		return nil, fmt.Errorf("row projection: %w", err)
	}
	pkgField, nameField := rowProj.Fields()[0], rowProj.Fields()[1]

	g := &Grid{units: d.Units, opts: opts, cells: make(map[cellKey]*Cell)}
	type rowID struct{ pkg, name string }
	rows := make(map[rowID]*Row)
	seenCol, seenUnit := make(map[string]bool), make(map[string]bool)
	values := make(map[cellKey][]float64)
	var order []cellKey
	for _, res := range d.results {
		match, err := filter.Match(res)
		if err != nil {
			return nil, err
		}
		if !match.Any() {
			continue
		}
		c := colProj.Project(res).StringValues()
		for i, k := range rowProj.ProjectValues(res) {
			if !match.Test(i) {
				continue
			}
			id := rowID{k.Get(pkgField), k.Get(nameField)}
			row := rows[id]
			if row == nil {
				row = newRow(id.pkg, id.name)
				rows[id] = row
				g.Rows = append(g.Rows, row)
			}
			unit := k.Get(unitField)
			if !seenCol[c] {
				seenCol[c] = true
				g.Columns = append(g.Columns, c)
			}
			if !seenUnit[unit] {
				seenUnit[unit] = true
				g.Units = append(g.Units, unit)
			}
			key := cellKey{row, c, unit}
			if _, ok := values[key]; !ok {
				order = append(order, key)
			}
			values[key] = append(values[key], res.Values[i].Value)
		}
	}
	qualifyFamilies(g.Rows)
	thresholds := &benchmath.Thresholds{CompareAlpha: opts.Alpha}
	for _, key := range order {
		s := benchmath.NewSample(values[key], thresholds)
		sum := d.Units.GetAssumption(key.unit).Summary(s, opts.Confidence)
		g.cells[key] = &Cell{Sample: s, Summary: sum}
	}
	return g, nil
}

// qualifyFamilies prefixes a family with its package name where two
// packages share a benchmark name, so their rows never mix.
func qualifyFamilies(rows []*Row) {
	pkgs := make(map[string]map[string]bool)
	for _, r := range rows {
		if pkgs[r.Base] == nil {
			pkgs[r.Base] = make(map[string]bool)
		}
		pkgs[r.Base][r.Pkg] = true
	}
	for _, r := range rows {
		if len(pkgs[r.Base]) > 1 {
			r.Family = path.Base(r.Pkg) + "." + r.Base
		}
	}
}

// Families returns the row families in the order first seen.
func (g *Grid) Families() []string {
	var out []string
	seen := make(map[string]bool)
	for _, r := range g.Rows {
		if !seen[r.Family] {
			seen[r.Family] = true
			out = append(out, r.Family)
		}
	}
	return out
}

// RowsOf returns the rows of family, in order.
func (g *Grid) RowsOf(family string) []*Row {
	var out []*Row
	for _, r := range g.Rows {
		if r.Family == family {
			out = append(out, r)
		}
	}
	return out
}

// ColumnsOf returns the columns that have a sample for some row of rows in
// unit, in grid order.
func (g *Grid) ColumnsOf(rows []*Row, unit string) []string {
	var out []string
	for _, c := range g.Columns {
		for _, r := range rows {
			if g.Cell(r, c, unit) != nil {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// UnitsOf returns the units measured for some row of rows, in grid order.
func (g *Grid) UnitsOf(rows []*Row) []string {
	var out []string
	for _, u := range g.Units {
		if len(g.ColumnsOf(rows, u)) > 0 {
			out = append(out, u)
		}
	}
	return out
}

func orAll(filter string) string {
	if strings.TrimSpace(filter) == "" {
		return "*"
	}
	return filter
}

func newRow(pkg, name string) *Row {
	base, parts := benchfmt.Name(name).Parts()
	r := &Row{Pkg: pkg, Base: string(base), Family: string(base), Name: name}
	for _, p := range parts {
		s := string(p)
		switch {
		case strings.HasPrefix(s, "-"):
			r.Params = append(r.Params, Param{"gomaxprocs", s[1:]})
		default:
			k, v, ok := strings.Cut(strings.TrimPrefix(s, "/"), "=")
			if !ok {
				k, v = "", k
			}
			r.Params = append(r.Params, Param{k, v})
		}
	}
	return r
}

// Comparison is one sample measured against another: an implementation
// against the baseline, or a new run against an old one.
type Comparison struct {
	Row        *Row
	Unit       string
	Base, Test string // column labels
	BaseCell   *Cell
	TestCell   *Cell
	// Ratio is the test median over the base median (NaN when the base is
	// zero and the test is not).
	Ratio float64
	// Stat is benchmath's test of the two samples; Stat.P < Stat.Alpha means
	// the difference is significant.
	Stat benchmath.Comparison
}

// Significant reports whether the samples differ at the grid's alpha.
func (c *Comparison) Significant() bool { return c.Stat.P < c.Stat.Alpha }

// Compare compares column test to column base for row and unit, or returns
// nil if either was not measured.
func (g *Grid) Compare(row *Row, unit, base, test string) *Comparison {
	b, t := g.Cell(row, base, unit), g.Cell(row, test, unit)
	if b == nil || t == nil {
		return nil
	}
	stat := g.units.GetAssumption(unit).Compare(b.Sample, t.Sample)
	return &Comparison{
		Row: row, Unit: unit, Base: base, Test: test, BaseCell: b, TestCell: t,
		Ratio: ratio(t.Summary.Center, b.Summary.Center),
		Stat:  stat,
	}
}

func ratio(test, base float64) float64 {
	switch {
	case test == base:
		return 1
	case base == 0:
		return math.NaN()
	}
	return test / base
}

// Worse returns by how much the comparison's test is worse than its base in
// the unit's direction, as a fraction (0.5 = 50% worse; negative = better),
// and false if the direction is unknown or the ratio undefined.
func (c *Comparison) Worse(dir Direction) (float64, bool) {
	if math.IsNaN(c.Ratio) {
		return 0, false
	}
	switch dir {
	case LowerIsBetter:
		return c.Ratio - 1, true
	case HigherIsBetter:
		return 1 - c.Ratio, true
	}
	return 0, false
}

// Package report turns a raw benchmark file into the lab's published
// results: a generated results/README.md (method, per-family tables of
// ratios to client-go, charts rendered with gonum.org/v1/plot, and a
// "which one should I use" section derived from the numbers by rules in
// code), and the headline table spliced into the top-level README.
//
// Everything is discovered from the data: families are top-level benchmark
// names, implementations are the values of the impl key, parameters are the
// other keys. A new family or implementation appears in the report without
// a code change, and a family with no data has no section. The same input
// always produces the same bytes, so a stale committed report is detectable.
package report

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/queuelab/queuelab/internal/benchcmp"
)

// Family is one top-level benchmark and everything measured under it.
type Family struct {
	Name string
	Rows []*benchcmp.Row
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
	// Primary is the unit that ranks implementations: the family's entry in
	// primaryUnits, else sec/op if measured, else the first rate, else the
	// first unit with a known direction.
	Primary string
}

// Model is the grouped data the report renders.
type Model struct {
	Grid     *benchcmp.Grid
	Families []*Family
}

func newModel(g *benchcmp.Grid, baseline string) *Model {
	m := &Model{Grid: g}
	for _, name := range g.Families() {
		f := &Family{Name: name, Rows: g.RowsOf(name)}
		f.Units = orderUnits(g.UnitsOf(f.Rows))
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
		f.Primary = primaryUnit(g, f.Name, f.Units)
		m.Families = append(m.Families, f)
	}
	return m
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

func primaryUnit(g *benchcmp.Grid, family string, units []string) string {
	if u, ok := primaryUnits[family]; ok && slices.Contains(units, u) {
		return u
	}
	for _, u := range units {
		if u == "sec/op" {
			return u
		}
	}
	for _, u := range units {
		if g.Better(u) == benchcmp.HigherIsBetter {
			return u
		}
	}
	for _, u := range units {
		if g.Better(u) != benchcmp.Unknown {
			return u
		}
	}
	return ""
}

// concurrencyKeys name parameters that count goroutines or Ps, in the order
// the report prefers them as the x axis of scaling charts.
var concurrencyKeys = []string{"producers", "workers", "consumers", "goroutines", "writers", "readers", "threads", "gomaxprocs"}

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

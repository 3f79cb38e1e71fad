// Package tabulate arranges load-run results into table columns: one
// column per implementation, the baseline first, each cell a median over
// interleaved rounds. The pipeline report (loadgen/report) and the
// whole-controller report (loadgen/controller) lay their tables out by
// these same rules, so a ratio means the same in both.
package tabulate

import "slices"

// Always reads a metric every result has.
func Always[R any](f func(R) float64) func(R) (float64, bool) {
	return func(r R) (float64, bool) { return f(r), true }
}

// Positive reads a metric a result has only when it is above zero (zero
// means not measured, such as a pipeline without a store).
func Positive[R any](f func(R) float64) func(R) (float64, bool) {
	return func(r R) (float64, bool) { v := f(r); return v, v > 0 }
}

// Column is one implementation's runs within a group: a table column.
type Column[R any] struct {
	Impl string
	Runs []R
}

// Median is the median of get over the column's runs that have the
// metric; false if none has it.
func (c Column[R]) Median(get func(R) (float64, bool)) (float64, bool) {
	var vs []float64
	for _, r := range c.Runs {
		if v, ok := get(r); ok {
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

// Groups splits results by key (a pipeline, a controller style), in the
// order keys first appear, and each group into one column per
// implementation: the baseline's first, the rest in run order.
func Groups[K comparable, R any](results []R, key func(R) K, impl func(R) string, baseline func(R) bool) [][]Column[R] {
	var order []K
	by := map[K][]Column[R]{}
	for _, r := range results {
		k := key(r)
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		cols := by[k]
		i := slices.IndexFunc(cols, func(c Column[R]) bool { return c.Impl == impl(r) })
		switch {
		case i >= 0:
			cols[i].Runs = append(cols[i].Runs, r)
		case baseline(r):
			cols = append([]Column[R]{{Impl: impl(r), Runs: []R{r}}}, cols...)
		default:
			cols = append(cols, Column[R]{Impl: impl(r), Runs: []R{r}})
		}
		by[k] = cols
	}
	out := make([][]Column[R], len(order))
	for i, k := range order {
		out[i] = by[k]
	}
	return out
}

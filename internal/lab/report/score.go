package report

import (
	"cmp"
	"math"
	"slices"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
)

// minEffect is the smallest difference a recommendation acts on: a
// significant 2% is real but not a reason to change a controller's
// dependencies.
const minEffect = 0.05

// Score is how one implementation fares against the baseline over a set of
// benchmarks in one unit.
type Score struct {
	Impl string
	// Cost is the geometric mean of the ratios to the baseline, oriented so
	// that below 1 is better whatever the unit's direction, with
	// differences that are not significant, or smaller than minEffect,
	// counted as 1: the report only credits what the statistics support.
	Cost float64
	// Rows is the number of benchmarks both were measured on.
	Rows int
	// Wins and Losses are the significant differences, best first and
	// worst first.
	Wins, Losses []*benchcmp.Comparison
}

// oriented turns a ratio into a cost (below 1 is better) and, being its own
// inverse, a cost back into the ratio the tables show.
func oriented(r float64, dir benchcmp.Direction) float64 {
	if dir == benchcmp.HigherIsBetter {
		return 1 / r
	}
	return r
}

// scores ranks every non-baseline implementation of f on question q, best
// first: each of q's rows and units is one comparison. It is empty without
// a baseline.
func scores(f *Family, q question) []Score {
	if f.Baseline == "" {
		return nil
	}
	var out []Score
	for _, impl := range f.Impls[1:] {
		if s, ok := score(f, q, impl); ok {
			out = append(out, s)
		}
	}
	// Broadest coverage first: a geometric mean over one benchmark is no
	// match for one over six (load runs and contention cells measure only
	// some implementations in some rows).
	slices.SortStableFunc(out, func(a, b Score) int {
		if c := cmp.Compare(b.Rows, a.Rows); c != 0 {
			return c
		}
		return cmp.Compare(a.Cost, b.Cost)
	})
	return out
}

// winner is the best-ranked implementation if it beats the baseline: a
// cost below 1 with at least one significant win.
func winner(scores []Score) (Score, bool) {
	if len(scores) == 0 || scores[0].Cost >= 1 || len(scores[0].Wins) == 0 {
		return Score{}, false
	}
	return scores[0], true
}

// rowsWhere returns the rows whose numeric param key equals v.
func rowsWhere(rows []*benchcmp.Row, key string, v float64) []*benchcmp.Row {
	var out []*benchcmp.Row
	for _, r := range rows {
		if paramFloat(r, key) == v {
			out = append(out, r)
		}
	}
	return out
}

// score is impl's Score on q, false if impl is a baseline of another arity
// or was never compared.
func score(f *Family, q question, impl string) (Score, bool) {
	base := benchcmp.PeerAmong(f.Impls, impl, f.Baseline)
	if base == impl {
		return Score{}, false // a baseline of another arity (clientgo+clientgo+clientgo)
	}
	s := Score{Impl: impl}
	logSum := 0.0
	for _, r := range q.rows {
		for _, unit := range q.units {
			dir := f.Grid.Better(unit)
			c := f.Grid.Compare(r, unit, base, impl)
			if dir == benchcmp.Unknown || c == nil || math.IsNaN(c.Ratio) || c.Ratio <= 0 || !measures(f.Grid, r, unit) {
				continue
			}
			s.Rows++
			if !c.Significant() {
				continue
			}
			cost := oriented(c.Ratio, dir)
			if math.Abs(math.Log(cost)) < math.Log(1+minEffect) {
				continue
			}
			logSum += math.Log(cost)
			if cost < 1 {
				s.Wins = append(s.Wins, c)
			} else {
				s.Losses = append(s.Losses, c)
			}
		}
	}
	if s.Rows == 0 {
		return Score{}, false
	}
	s.Cost = math.Exp(logSum / float64(s.Rows))
	byCost := func(a, b *benchcmp.Comparison) int {
		return cmp.Compare(oriented(a.Ratio, f.Grid.Better(a.Unit)), oriented(b.Ratio, f.Grid.Better(b.Unit)))
	}
	slices.SortStableFunc(s.Wins, byCost)
	slices.SortStableFunc(s.Losses, func(a, b *benchcmp.Comparison) int { return byCost(b, a) })
	return s, true
}

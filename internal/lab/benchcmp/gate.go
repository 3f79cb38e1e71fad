package benchcmp

import (
	"fmt"
	"slices"
)

// GateOptions configure the regression gate.
type GateOptions struct {
	// Tolerance is the largest accepted significant worsening, as a fraction
	// (0.05 = 5%). Significant changes within it pass.
	Tolerance float64
	// Impls limits the gate to these implementations; empty means all.
	Impls []string
}

// Regression is a significant worsening beyond the tolerance.
type Regression struct {
	*Comparison
	// Impl is the implementation that regressed ("" for a benchmark without
	// an impl key).
	Impl string
	// Worse is the worsening as a fraction (0.5 = 50% worse).
	Worse float64
	// Direction is the unit's direction.
	Direction Direction
}

// String says exactly what regressed and by how much.
func (r Regression) String() string {
	return fmt.Sprintf("%s impl=%s %s: %s -> %s (%+.1f%% worse, %s, %s)",
		r.Row.Label(), orNone(r.Impl), r.Unit,
		Human(r.BaseCell.Summary.Center, r.Unit), Human(r.TestCell.Summary.Center, r.Unit),
		100*r.Worse, r.Stat, r.Direction)
}

// GateResult is the verdict of the gate plus what it looked at.
type GateResult struct {
	Regressions []Regression
	// Checked counts comparisons with a known direction; Unknown counts
	// those skipped for an unknown direction, and Insignificant those whose
	// difference was noise.
	Checked, Unknown, Insignificant int
	// Missing lists benchmarks measured in the old file but not the new one
	// (reported, not failed: a renamed benchmark is not a slowdown).
	Missing []string
}

// Failed reports whether any regression was found.
func (r *GateResult) Failed() bool { return len(r.Regressions) > 0 }

// Gate compares column newCol against oldCol of a ByFile grid and returns
// every implementation, benchmark and metric that got significantly worse
// than opts.Tolerance. It is an error to name an implementation that
// appears in neither file, so a typo cannot make the gate pass.
func (g *Grid) Gate(oldCol, newCol string, opts GateOptions) (*GateResult, error) {
	if opts.Tolerance < 0 {
		return nil, fmt.Errorf("tolerance %v is negative", opts.Tolerance)
	}
	seen := make(map[string]bool)
	for _, row := range g.Rows {
		impl, _ := row.Param(ImplKey)
		seen[impl] = true
	}
	for _, want := range opts.Impls {
		if !seen[want] {
			return nil, fmt.Errorf("implementation %q is in neither file (have: %s)", want, sortedKeys(seen))
		}
	}
	res := &GateResult{}
	for _, row := range g.Rows {
		impl, _ := row.Param(ImplKey)
		if len(opts.Impls) > 0 && !slices.Contains(opts.Impls, impl) {
			continue
		}
		for _, unit := range g.Units {
			c := g.Compare(row, unit, oldCol, newCol)
			if c == nil {
				if g.Cell(row, oldCol, unit) != nil {
					res.Missing = append(res.Missing, row.Label()+" "+unit)
				}
				continue
			}
			dir := g.Better(unit)
			worse, ok := c.Worse(dir)
			switch {
			case !ok:
				res.Unknown++
				continue
			case !c.Significant():
				res.Insignificant++
			}
			res.Checked++
			if c.Significant() && worse > opts.Tolerance {
				res.Regressions = append(res.Regressions, Regression{Comparison: c, Impl: impl, Worse: worse, Direction: dir})
			}
		}
	}
	return res, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

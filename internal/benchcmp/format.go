package benchcmp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchunit"
)

// FormatValue scales v for display in unit's class ("1.234µ", "12.5Ki").
func FormatValue(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "?"
	}
	return benchunit.Scale(v, benchunit.ClassOf(unit))
}

// FormatSummary renders a cell as benchstat does: the median and the
// confidence interval as a percentage, or the bare value when there are too
// few samples for an interval.
func FormatSummary(c *Cell, unit string) string {
	v := FormatValue(c.Summary.Center, unit)
	if math.IsInf(c.Summary.Lo, 0) || math.IsInf(c.Summary.Hi, 0) {
		return v + " (n=" + fmt.Sprint(c.N()) + ")"
	}
	return v + " ± " + c.Summary.PctRangeString()
}

// FormatRatio renders a ratio to the baseline: "0.62×".
func FormatRatio(r float64) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return "?"
	case r >= 100:
		return fmt.Sprintf("%.0f×", r)
	case r >= 10:
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// RatioString renders a comparison as a ratio with its test statistic, or
// "~" when the difference is not significant.
func (c *Comparison) RatioString() string {
	if !c.Significant() {
		return "~ (" + c.Stat.String() + ")"
	}
	return FormatRatio(c.Ratio) + " (" + c.Stat.String() + ")"
}

// DeltaString renders a comparison as a percentage change, benchstat style.
func (c *Comparison) DeltaString() string {
	return c.Stat.FormatDelta(c.BaseCell.Summary.Center, c.TestCell.Summary.Center) + " (" + c.Stat.String() + ")"
}

func sortedKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, orNone(k))
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

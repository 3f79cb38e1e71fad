package benchcmp

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Human renders v, measured in unit, the way a person reads it: a time in
// ns, µs, ms or s; bytes in B, KiB, MiB or GiB; a rate in k/s or M/s; a
// count with k or M. Three significant digits at most, and never an
// exponent: "5.59e+04" reads as a typo in a table of ratios.
func Human(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "?"
	}
	switch {
	case isTime(unit):
		if strings.HasSuffix(strings.Split(unit, "/")[0], "ns") {
			v /= 1e9
		}
		return scaled(v, 1000, []string{" ns", " µs", " ms", " s"}, 1e-9)
	case isBytes(unit):
		return scaled(v, 1024, []string{" B", " KiB", " MiB", " GiB", " TiB"}, 1)
	case strings.HasSuffix(unit, "/s"):
		return scaled(v, 1000, []string{"/s", "k/s", "M/s", "G/s"}, 1)
	case v != 0 && math.Abs(v) < 1:
		return digits(v)
	}
	return scaled(v, 1000, []string{"", "k", "M", "G"}, 1)
}

// isTime reports whether unit measures time: sec/op, and the latency units
// of load runs (p99_ns, or p99_sec as benchfmt tidies it).
func isTime(unit string) bool {
	num, _, _ := strings.Cut(unit, "/")
	return num == "sec" || num == "ns" || strings.HasSuffix(num, "_sec") || strings.HasSuffix(num, "_ns")
}

// isBytes reports whether unit counts bytes (B/op, B/obj, peak-heap-B).
func isBytes(unit string) bool {
	num, _, _ := strings.Cut(unit, "/")
	return !strings.HasSuffix(unit, "/s") && (num == "B" || strings.HasSuffix(num, "-B") || strings.HasSuffix(num, "_B"))
}

// scaled divides v by step until it is below step, expressed in base units
// of size first (1e-9 for seconds counted from nanoseconds).
func scaled(v, step float64, suffixes []string, first float64) string {
	if v == 0 {
		return "0" + suffixes[0]
	}
	v /= first
	i := 0
	for math.Abs(v) >= step && i < len(suffixes)-1 {
		v /= step
		i++
	}
	// 999.7 rounds to "1000": take the next suffix instead.
	if digits(v) == "1000" && i < len(suffixes)-1 {
		v /= step
		i++
	}
	return digits(v) + suffixes[i]
}

// digits prints v with three significant digits, or fewer when they are
// zeros ("2", "2.5", "0.125"), in plain decimal notation.
func digits(v float64) string {
	a := math.Abs(v)
	prec := 0
	switch {
	case a == 0:
	case a < 1:
		prec = 2 - int(math.Floor(math.Log10(a)))
	case a < 10:
		prec = 2
	case a < 100:
		prec = 1
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// FormatSummary renders a cell: the median in human units and its
// confidence interval as a percentage, or the bare median with the sample
// count when there are too few samples for an interval.
func FormatSummary(c *Cell, unit string) string {
	v := Human(c.Summary.Center, unit)
	if math.IsInf(c.Summary.Lo, 0) || math.IsInf(c.Summary.Hi, 0) {
		return v + " (n=" + fmt.Sprint(c.N()) + ")"
	}
	return v + " ±" + c.Summary.PctRangeString()
}

// FormatRatio renders a ratio to the baseline: "0.62×", "34×".
func FormatRatio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "?"
	}
	return ratioDigits(r) + "×"
}

func ratioDigits(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	case r >= 10:
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
	return strconv.FormatFloat(r, 'f', 2, 64)
}

// Times says how many times better or worse a ratio of a test to a base
// is, in words that carry the unit's direction: "2.9× faster", "3.1× less
// memory", "34× more writes/s", "1.2× slower".
func Times(r float64, unit string) string {
	if math.IsNaN(r) || r <= 0 || math.IsInf(r, 0) {
		return "?"
	}
	var up, down string // the words for a ratio above and below 1
	switch {
	case isTime(unit):
		up, down = "slower", "faster"
	case isBytes(unit):
		up, down = "more memory", "less memory"
	case strings.HasSuffix(unit, "/s"):
		up, down = "more "+unit, "fewer "+unit
	default:
		num, _, _ := strings.Cut(unit, "/")
		up, down = "more "+num, "fewer "+num
	}
	n, word := r, up
	if r < 1 {
		n, word = 1/r, down
	}
	if n < 1.005 {
		return "no difference"
	}
	return ratioDigits(n) + "× " + word
}

// RatioCell renders a comparison as a table cell: the ratio, marked "~"
// when the difference is not significant (or too few samples to tell).
func (c *Comparison) RatioCell() string {
	if !c.Significant() {
		return "~" + FormatRatio(c.Ratio)
	}
	return FormatRatio(c.Ratio)
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

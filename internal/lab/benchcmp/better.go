package benchcmp

import (
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Direction says which way a metric improves.
type Direction int

// The directions a unit can have. Unknown metrics are reported but never
// gated: the gate cannot call a change a regression without knowing which
// way is worse.
const (
	LowerIsBetter  Direction = -1
	Unknown        Direction = 0
	HigherIsBetter Direction = 1
)

// String names the direction as the report's table headings do.
func (d Direction) String() string {
	switch d {
	case LowerIsBetter:
		return "lower is better"
	case HigherIsBetter:
		return "higher is better"
	}
	return "direction unknown"
}

// Better returns the direction of unit (a tidied unit, as benchfmt reports
// it: "sec/op", not "ns/op"). An explicit "Unit <unit> better=higher|lower"
// line wins. Otherwise the lab's conventions decide: rates ("events/s",
// "items/s", "B/s") are throughput, higher is better; time, bytes and
// allocation counts ("sec/op", "B/op", "allocs/op", "B/obj", "p99_ns",
// "peak-heap-B") are costs, lower is better.
func Better(units benchfmt.UnitMetadataMap, unit string) Direction {
	if m := units.Get(unit, "better"); m != nil {
		switch m.Value {
		case "higher":
			return HigherIsBetter
		case "lower":
			return LowerIsBetter
		}
		return Unknown
	}
	if strings.HasSuffix(unit, "/s") {
		return HigherIsBetter
	}
	num, _, _ := strings.Cut(unit, "/")
	for _, cost := range []string{"sec", "ns", "B", "allocs"} {
		if num == cost || strings.HasSuffix(num, "_"+cost) || strings.HasSuffix(num, "-"+cost) {
			return LowerIsBetter
		}
	}
	return Unknown
}

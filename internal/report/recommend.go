package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/queuelab/queuelab/internal/benchcmp"
)

// Recommendation is one line of "which one should I use", derived from the
// numbers and pointing at the benchmarks that justify it.
type Recommendation struct {
	Family    string
	Situation string
	// Choice is the implementation to use; the baseline when nothing beats
	// it.
	Choice string
	Score  Score
	Unit   string
	// Evidence are the benchmarks with the largest significant wins.
	Evidence []*benchcmp.Comparison
}

// maxEvidence is how many benchmarks a recommendation cites.
const maxEvidence = 3

// rule derives zero or more recommendations for a family.
type rule func(m *Model, f *Family) []Recommendation

// rules run in this order for every family with a baseline.
var rules = []rule{overall, byParam(concurrencyKeys, "goroutines"), byParam(sizeKeys, "data"), memory, allocations, tailLatency}

// Recommend applies every rule to every family with a baseline.
func (m *Model) Recommend() []Recommendation {
	var out []Recommendation
	for _, f := range m.Families {
		if f.Baseline == "" {
			continue
		}
		for _, r := range rules {
			out = append(out, r(m, f)...)
		}
	}
	return out
}

func recommend(m *Model, f *Family, rows []*benchcmp.Row, unit, situation string, keepBaseline bool) []Recommendation {
	if unit == "" {
		return nil
	}
	scores := m.scores(f, rows, unit)
	w, ok := winner(scores)
	if !ok {
		if !keepBaseline || len(scores) == 0 {
			return nil
		}
		return []Recommendation{{Family: f.Name, Situation: situation, Choice: f.Baseline, Score: scores[0], Unit: unit}}
	}
	return []Recommendation{{Family: f.Name, Situation: situation, Choice: w.Impl, Score: w, Unit: unit,
		Evidence: w.Wins[:min(maxEvidence, len(w.Wins))]}}
}

// overall picks the best implementation on the family's primary metric
// over all its benchmarks, or says to keep the baseline.
func overall(m *Model, f *Family) []Recommendation {
	return recommend(m, f, f.Rows, f.Primary, "in general", true)
}

// byParam splits the family at the smallest and largest value of the first
// numeric parameter among keys (goroutine counts, data sizes) and picks a
// winner at each end, so "one worker" and "many workers" can differ.
func byParam(keys []string, what string) rule {
	return func(m *Model, f *Family) []Recommendation {
		key, vals := numericParam(f.Rows, keys)
		if key == "" {
			return nil
		}
		lo, hi := vals[0], vals[len(vals)-1]
		var out []Recommendation
		for _, end := range []struct {
			v    float64
			word string
		}{{lo, "small"}, {hi, "large"}} {
			situation := fmt.Sprintf("%s %s (%s=%g)", end.word, what, key, end.v)
			if what == "goroutines" {
				situation = fmt.Sprintf("%s (%s=%g)", map[string]string{"small": "few goroutines", "large": "many goroutines"}[end.word], key, end.v)
			}
			out = append(out, recommend(m, f, rowsWhere(f.Rows, key, end.v), f.Primary, situation, false)...)
		}
		return out
	}
}

// memory picks the leanest implementation: bytes per object or peak heap
// when measured (what a big relist costs), else bytes allocated per op.
func memory(m *Model, f *Family) []Recommendation {
	unit := ""
	for _, u := range f.Units {
		if isMemory(u) && u != "B/op" {
			unit = u
			break
		}
	}
	if unit == "" && slices.Contains(f.Units, "B/op") {
		unit = "B/op"
	}
	return recommend(m, f, f.Rows, unit, "memory-bound (e.g. large relists)", false)
}

// allocations picks the implementation that allocates least per op: what
// matters for GC pressure in a controller that runs for months.
func allocations(m *Model, f *Family) []Recommendation {
	if !slices.Contains(f.Units, "allocs/op") {
		return nil
	}
	return recommend(m, f, f.Rows, "allocs/op", "fewest allocations (GC pressure)", false)
}

// tailLatency picks the implementation with the best p99 (load runs).
func tailLatency(m *Model, f *Family) []Recommendation {
	for _, u := range f.Units {
		if p, ok := percentile(u); ok && p == "p99" {
			return recommend(m, f, f.Rows, u, "tail latency (p99)", false)
		}
	}
	return nil
}

// isMemory reports whether unit measures bytes of memory (not a rate).
func isMemory(unit string) bool {
	num, _, _ := strings.Cut(unit, "/")
	return !strings.HasSuffix(unit, "/s") && (num == "B" || strings.HasSuffix(num, "-B") || strings.HasSuffix(num, "_B"))
}

// percentileUnit matches latency units as benchfmt tidies them: p50_ns
// becomes p50_sec.
var percentileUnit = regexp.MustCompile(`^(p\d+|max)[_-](sec|ns)$`)

// percentile returns "p99" for "p99_sec" (and "max" for "max_sec").
func percentile(unit string) (string, bool) {
	m := percentileUnit.FindStringSubmatch(unit)
	if m == nil {
		return "", false
	}
	return m[1], true
}

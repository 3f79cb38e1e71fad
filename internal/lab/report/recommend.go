package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
)

// Recommendation is one line of "which one should I use", derived from the
// numbers and pointing at the benchmarks that justify it.
type Recommendation struct {
	Family    *Family
	Situation string
	// Choice is the implementation to use; the baseline when nothing beats
	// it.
	Choice string
	Score  Score
	// On is the question the choice was ranked on.
	On question
	// Evidence are the benchmarks with the largest significant wins.
	Evidence []*benchcmp.Comparison
}

// maxEvidence is how many benchmarks a recommendation cites.
const maxEvidence = 2

// rule derives zero or more recommendations for a family.
type rule func(f *Family) []Recommendation

// rules run in this order for every family with a baseline.
var rules = []rule{overall, byParam(concurrencyKeys, "goroutines"), byParam(sizeKeys, "data"), memory, tailLatency}

// recommendations applies every rule to every family with a baseline.
func recommendations(fams []*Family) []Recommendation {
	var out []Recommendation
	for _, f := range fams {
		if f.Baseline == "" {
			continue
		}
		for _, r := range rules {
			out = append(out, r(f)...)
		}
	}
	return out
}

func recommend(f *Family, q question, situation string, keepBaseline bool) []Recommendation {
	if len(q.units) == 0 || len(q.rows) == 0 {
		return nil
	}
	ss := scores(f, q)
	w, ok := winner(ss)
	if !ok {
		if !keepBaseline || len(ss) == 0 {
			return nil
		}
		return []Recommendation{{Family: f, Situation: situation, Choice: f.Baseline, Score: ss[0], On: q}}
	}
	return []Recommendation{{Family: f, Situation: situation, Choice: w.Impl, Score: w, On: q,
		Evidence: w.Wins[:min(maxEvidence, len(w.Wins))]}}
}

// overall picks the best implementation on the family's primary question
// over all its benchmarks, or says to keep the baseline.
func overall(f *Family) []Recommendation {
	return recommend(f, f.Primary, "in general", true)
}

// byParam splits the family at the smallest and largest value of the first
// numeric parameter among keys (goroutine counts, data sizes) and picks a
// winner at each end, so "one worker" and "many workers" can differ.
func byParam(keys []string, what string) rule {
	return func(f *Family) []Recommendation {
		key, vals := numericParam(f.Primary.rows, keys)
		if key == "" {
			return nil
		}
		var out []Recommendation
		for _, end := range []struct {
			v    float64
			word string
		}{{vals[0], "few"}, {vals[len(vals)-1], "many"}} {
			situation := fmt.Sprintf("%s %s (%s=%g)", end.word, what, key, end.v)
			if what == "data" {
				situation = fmt.Sprintf("%s data (%s=%g)", map[string]string{"few": "small", "many": "large"}[end.word], key, end.v)
			}
			q := f.Primary
			q.rows = rowsWhere(q.rows, key, end.v)
			out = append(out, recommend(f, q, situation, false)...)
		}
		return out
	}
}

// memory picks the leanest implementation: the memory a structure holds
// when measured (what a big relist costs), else what an op allocates.
func memory(f *Family) []Recommendation {
	if u := f.heldUnit(); u != "" {
		return recommend(f, question{title: code(u), units: []string{u}, rows: f.rowsOf(u)}, "memory held", false)
	}
	return recommend(f, question{title: "B/op", units: []string{"B/op"}, rows: f.rowsOf("B/op")}, "memory allocated", false)
}

// tailLatency picks the implementation with the best p99 (load runs).
func tailLatency(f *Family) []Recommendation {
	for _, u := range f.Units {
		if p, ok := percentile(u); ok && p == "p99" {
			return recommend(f, question{title: "p99 latency", units: []string{u}, rows: f.rowsOf(u)}, "tail latency (p99)", false)
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

// words says a score's cost in words per unit of its question: "2.9×
// faster", or "34× more writes/s, 1.6× more reads/s" for a question of
// several rates.
func words(f *Family, q question, impl string) string {
	var parts []string
	for _, u := range q.units {
		s, ok := score(f, question{units: []string{u}, rows: q.rows}, impl)
		if !ok {
			continue
		}
		w := benchcmp.Times(oriented(s.Cost, f.Grid.Better(u)), u)
		if w == "no difference" && len(q.units) > 1 {
			w = "same " + u
		}
		parts = append(parts, w)
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(slices.Compact(parts), ", ")
}

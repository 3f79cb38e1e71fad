package benchcmp

import (
	"slices"
	"strings"
)

// BaselineOf returns the column of cols that plays the baseline's part: the
// baseline itself, or for composed implementations ("store+fifo+workq", as
// load runs name them) the combination made only of the baseline
// ("clientgo+clientgo+clientgo"); "" if there is none.
func BaselineOf(cols []string, baseline string) string {
	if slices.Contains(cols, baseline) {
		return baseline
	}
	for _, c := range cols {
		parts := strings.Split(c, "+")
		if len(parts) > 1 && !slices.ContainsFunc(parts, func(p string) bool { return p != baseline }) {
			return c
		}
	}
	return ""
}

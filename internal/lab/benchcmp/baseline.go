package benchcmp

import (
	"slices"
	"strings"
)

// UpstreamFallback is the baseline of a family client-go has no
// implementation of: controller-runtime's priority queue, what every
// controller-runtime controller runs by default.
const UpstreamFallback = "controllerruntime"

// BaselineOf returns the column of cols that plays the baseline's part: the
// baseline itself, or for composed implementations ("store+fifo+workq", as
// load runs name them) the combination made only of the baseline
// ("clientgo+clientgo+clientgo"); UpstreamFallback for a family that has
// no baseline column but has it; "" if there is none.
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
	if slices.Contains(cols, UpstreamFallback) {
		return UpstreamFallback
	}
	return ""
}

// PeerOf returns the baseline's counterpart of test: the baseline itself for
// a plain implementation, and for a composed one the combination of as many
// parts made only of the baseline ("mutex+ring" → "clientgo+clientgo"), so
// that a row measuring several kinds of pipelines compares each against
// its own all-baseline run. baseline may itself be such a combination.
func PeerOf(test, baseline string) string {
	atom, _, _ := strings.Cut(baseline, "+")
	n := strings.Count(test, "+") + 1
	return strings.Repeat(atom+"+", n-1) + atom
}

// PeerAmong is PeerOf within a run that measured impls: where test's
// all-baseline counterpart was not measured (the informer built with zero
// Options, "default", beside the stock stack "clientgo+clientgo"), the
// run's baseline column (BaselineOf) stands in, so that a one-word name
// still gets a ratio instead of a table of its own.
func PeerAmong(impls []string, test, baseline string) string {
	p := PeerOf(test, baseline)
	if slices.Contains(impls, p) {
		return p
	}
	if b := BaselineOf(impls, baseline); b != "" {
		return b
	}
	return p
}

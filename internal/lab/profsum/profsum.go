// Package profsum turns pprof profiles into the few lines that explain a
// benchmark result: the top functions by flat and cumulative cost for CPU
// and heap profiles, and for mutex and block profiles the contended call
// sites — which lock or wait operation, called from where, cost how much
// delay how many times.
//
// "Flat" is what a function spent itself; "cumulative" includes its
// callees. For contention the interesting frame is neither the runtime's
// nor sync's: it is the first frame above them, the code that took the
// lock (e.g. k8s.io/client-go/util/workqueue.(*Typed[...]).Get waiting in
// sync.(*Cond).Wait).
package profsum

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// Kind is what a profile measures.
type Kind string

// The kinds of profile Summarize understands.
const (
	CPU        Kind = "cpu"
	Heap       Kind = "heap"
	Contention Kind = "contention" // mutex and block profiles
	Other      Kind = "other"
)

// Entry is one function's cost.
type Entry struct {
	Func       string
	Flat, Cum  int64
	FlatFrac   float64 // Flat / Total
	CumFrac    float64 // Cum / Total
	FlatCount  int64   // contention count or allocated objects, when known
	CumCount   int64
	firstStack int
}

// Site is one contended call site: the waiting operation and the code that
// called it.
type Site struct {
	// Wait is the outermost runtime or sync frame of the stack: the lock or
	// wait operation ("sync.(*Mutex).Unlock", "sync.(*Cond).Wait",
	// "runtime.chanrecv1").
	Wait string
	// Caller is the first frame above Wait: the code that contended.
	Caller string
	// Via is the frame above Caller (who called the contended code), "" at
	// the root.
	Via string
	// Delay is the total time waited, in the profile's unit; Count the
	// number of contention events.
	Delay, Count int64
	Frac         float64 // Delay / Total
}

// Summary is the digest of one profile.
type Summary struct {
	Kind Kind
	// Value is the sample type ranked ("cpu", "alloc_space", "delay").
	Value, Unit string
	Total       int64
	TotalCount  int64
	Flat, Cum   []Entry
	Sites       []Site
}

// Summarize digests p, keeping the top n entries of each list.
func Summarize(p *profile.Profile, n int) (*Summary, error) {
	kind, vi, ci := classify(p)
	if vi < 0 {
		return nil, fmt.Errorf("profile has no sample types")
	}
	s := &Summary{Kind: kind, Value: p.SampleType[vi].Type, Unit: p.SampleType[vi].Unit}
	funcs := make(map[string]*Entry)
	sites := make(map[[3]string]*Site)
	for i, sample := range p.Sample {
		v := sample.Value[vi]
		var c int64
		if ci >= 0 {
			c = sample.Value[ci]
		}
		s.Total += v
		s.TotalCount += c
		frames := stack(sample)
		if len(frames) == 0 {
			continue
		}
		entry := func(name string) *Entry {
			e := funcs[name]
			if e == nil {
				e = &Entry{Func: name, firstStack: i}
				funcs[name] = e
			}
			return e
		}
		leaf := entry(frames[0])
		leaf.Flat += v
		leaf.FlatCount += c
		seen := make(map[string]bool, len(frames))
		for _, f := range frames {
			if !seen[f] {
				seen[f] = true
				e := entry(f)
				e.Cum += v
				e.CumCount += c
			}
		}
		if kind == Contention && !strings.HasPrefix(frames[min(1, len(frames)-1)], "testing.") {
			key := contendedSite(frames)
			site := sites[key]
			if site == nil {
				site = &Site{Wait: key[0], Caller: key[1], Via: key[2]}
				sites[key] = site
			}
			site.Delay += v
			site.Count += c
		}
	}
	all := make([]Entry, 0, len(funcs))
	for _, e := range funcs {
		e.FlatFrac, e.CumFrac = frac(e.Flat, s.Total), frac(e.Cum, s.Total)
		all = append(all, *e)
	}
	s.Flat = top(all, n, func(e Entry) int64 { return e.Flat })
	s.Cum = top(all, n, func(e Entry) int64 { return e.Cum })
	for _, site := range sites {
		site.Frac = frac(site.Delay, s.Total)
		s.Sites = append(s.Sites, *site)
	}
	slices.SortFunc(s.Sites, func(a, b Site) int {
		return cmp.Or(cmp.Compare(b.Delay, a.Delay), cmp.Compare(b.Count, a.Count),
			strings.Compare(a.Caller, b.Caller), strings.Compare(a.Wait, b.Wait), strings.Compare(a.Via, b.Via))
	})
	s.Sites = s.Sites[:min(n, len(s.Sites))]
	return s, nil
}

// classify picks the kind of profile and the sample value to rank by: CPU
// time, allocated bytes (what a benchmark's B/op comes from, rather than
// what happened to be live at the end), or contention delay; plus the
// index of a companion count, or -1.
func classify(p *profile.Profile) (kind Kind, value, count int) {
	idx := func(typ string) int {
		return slices.IndexFunc(p.SampleType, func(v *profile.ValueType) bool { return v.Type == typ })
	}
	switch {
	case idx("cpu") >= 0:
		return CPU, idx("cpu"), -1
	case idx("alloc_space") >= 0:
		return Heap, idx("alloc_space"), idx("alloc_objects")
	case idx("delay") >= 0:
		return Contention, idx("delay"), idx("contentions")
	}
	return Other, len(p.SampleType) - 1, -1
}

// stack returns the sample's function names, leaf first, inlined frames
// expanded (pprof lists a location's inlined callee before its caller).
// Names are normalised so one source function is one frame: type arguments
// become "[...]" (a generic method and its shape-instantiated body are one
// function to a reader) and defer wrappers fold into their function.
func stack(s *profile.Sample) []string {
	var out []string
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			name := normalize(line.Function.Name)
			if len(out) == 0 || out[len(out)-1] != name {
				out = append(out, name)
			}
		}
	}
	return out
}

var (
	typeArgs  = regexp.MustCompile(`\[[^\[\]]*(\[[^\[\]]*\][^\[\]]*)*\]`)
	deferWrap = regexp.MustCompile(`\.deferwrap\d+$`)
)

func normalize(fn string) string {
	return deferWrap.ReplaceAllString(typeArgs.ReplaceAllString(fn, "[...]"), "")
}

// contendedSite finds, leaf first, the outermost frame of the runtime and
// sync machinery and the two frames above it.
func contendedSite(frames []string) [3]string {
	i := 0
	for i < len(frames)-1 && isMachinery(frames[i+1]) {
		i++
	}
	if !isMachinery(frames[i]) {
		// No lock frame at all (a user-level wait): the leaf is the site.
		return [3]string{"", frames[0], at(frames, 1)}
	}
	return [3]string{frames[i], at(frames, i+1), at(frames, i+2)}
}

func at(frames []string, i int) string {
	if i < len(frames) {
		return frames[i]
	}
	return ""
}

// isMachinery reports whether a frame belongs to the runtime or the sync
// packages, which every contended stack passes through on its way to the
// code that actually contended.
func isMachinery(fn string) bool {
	for _, pkg := range []string{"runtime.", "sync.", "internal/sync.", "sync/atomic.", "internal/runtime/"} {
		if strings.HasPrefix(fn, pkg) {
			return true
		}
	}
	return false
}

func top(all []Entry, n int, by func(Entry) int64) []Entry {
	out := slices.Clone(all)
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(by(b), by(a)), cmp.Compare(a.firstStack, b.firstStack), strings.Compare(a.Func, b.Func))
	})
	out = slices.DeleteFunc(out, func(e Entry) bool { return by(e) == 0 })
	return out[:min(n, len(out))]
}

func frac(v, total int64) float64 {
	if total == 0 {
		return 0
	}
	return float64(v) / float64(total)
}

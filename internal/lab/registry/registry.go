// Package registry is the lab's catalogue of implementations: for every
// family, each implementation's name, a one-line description, its
// constructor and the guarantees it declares to its conformance suite.
//
// It is lab code. The library packages export the implementations, their
// typed options and the drop-in adapters; names, baselines and declared
// guarantees are what the lab's suites, benchmarks, load generator and CLI
// range over, so they live here, in the lab's module, out of every
// importer's graph. Each family's list is built by a function that returns
// a fresh slice: nothing here is mutable package state.
package registry

import (
	"fmt"
	"slices"
	"strings"
)

// Baseline is the name every family gives to client-go's own implementation.
// It is the reference model in conformance tests and the denominator of every
// ratio the lab reports.
const Baseline = "clientgo"

// Entry is one named implementation of a family.
//
// New is the family's constructor type; G is the family's guarantee type,
// which conformance suites consult to skip exactly the properties an
// implementation declares it relaxes.
type Entry[New any, G any] struct {
	// Name is the registry key: lowercase, no '/', no spaces, never ending in
	// "-<digits>" (benchstat would read that suffix as GOMAXPROCS).
	Name string
	// Doc is a one-line description shown by the CLI and the report.
	Doc string
	// New constructs a fresh instance.
	New New
	// Guarantees declares what the implementation promises.
	Guarantees G
}

// List is a family's registry, in presentation order (baseline first by
// convention).
type List[New any, G any] []Entry[New, G]

// Names returns the registered names in order.
func (l List[New, G]) Names() []string {
	names := make([]string, len(l))
	for i, e := range l {
		names[i] = e.Name
	}
	return names
}

// Lookup returns the entry called name, or an error that lists the valid
// names so a mistyped flag explains itself.
func (l List[New, G]) Lookup(name string) (Entry[New, G], error) {
	for _, e := range l {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry[New, G]{}, fmt.Errorf("unknown implementation %q (known: %s)", name, strings.Join(l.Names(), ", "))
}

// Select resolves a user's selection: "all" (or "") selects every entry;
// otherwise a comma-separated list of names selects those entries in the
// order given. Duplicates are an error, as is any unknown name.
func (l List[New, G]) Select(spec string) (List[New, G], error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "all" {
		return slices.Clone(l), nil
	}
	var out List[New, G]
	seen := make(map[string]bool)
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		if seen[name] {
			return nil, fmt.Errorf("implementation %q selected twice", name)
		}
		seen[name] = true
		e, err := l.Lookup(name)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Must unwraps a constructor called with settings known to be valid, such
// as a registry entry's defaults: an error there is a programming error, so
// Must panics with it.
func Must[Q any](q Q, err error) Q {
	if err != nil {
		panic(err)
	}
	return q
}

// Package pipeline assembles the controller data path from the families'
// registries and drives a generated stream through it:
//
//   - workqueue: producers Add keys (the stream's key popularity), workers
//     Get, reconcile (configurable cost and error rate: errors go back with
//     AddRateLimited, successes Forget) and Done.
//   - informer: stream → an informer (client-go's shipped
//     cache.NewSharedIndexInformer for the all-client-go stack, the lab's
//     drop-in informer.NewSharedIndexInformer over a store and a FIFO
//     otherwise; see Stack.NewInformer) → its handler → a workqueue →
//     workers that read the object back through the store (GetByKey,
//     ByIndex on its namespace).
//   - store: stream → an informer → store, with readers doing Get, ByIndex
//     and List against it (lister traffic), measuring staleness.
//
// Every stage comes from a registry entry, so new implementations join the
// comparison when they are registered, with no change here.
package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
	labregistry "github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/workq/workqtest"
	"github.com/queuelab/queuelab/stores/storetest"
)

// Kind names a pipeline.
type Kind string

// The pipelines.
const (
	WorkQueue Kind = "workqueue"
	Informer  Kind = "informer"
	Store     Kind = "store"
)

// Kinds lists the pipelines in presentation order.
var Kinds = []Kind{Informer, WorkQueue, Store}

// ParseKinds resolves a comma-separated list of pipeline names ("all" for
// every one).
func ParseKinds(spec string) ([]Kind, error) {
	if spec == "" || spec == "all" {
		return slices.Clone(Kinds), nil
	}
	var out []Kind
	for _, name := range strings.Split(spec, ",") {
		k := Kind(strings.TrimSpace(name))
		if !slices.Contains(Kinds, k) {
			return nil, fmt.Errorf("unknown pipeline %q (known: informer, workqueue, store)", name)
		}
		if slices.Contains(out, k) {
			return nil, fmt.Errorf("pipeline %q selected twice", name)
		}
		out = append(out, k)
	}
	return out, nil
}

// Entry types of the three families a stack draws from.
type (
	StoreEntry = labregistry.Entry[func(cache.Indexers) cache.ThreadSafeStore, storetest.Guarantees]
	FIFOEntry  = labregistry.Entry[informer.FIFO, informertest.Guarantees]
	WorkQEntry = labregistry.Entry[func() workqueue.TypedInterface[string], workqtest.Guarantees]
)

// Stack is one implementation per family. A pipeline uses the families it
// needs: workqueue only WorkQ, store Store and FIFO, informer all three.
type Stack struct {
	Store StoreEntry
	FIFO  FIFOEntry
	WorkQ WorkQEntry
	// Default makes the informer the drop-in as a controller gets it
	// without choosing parts (NewDefaultInformer), named DefaultStack in
	// place of <store>+<fifo>: whatever the informer's defaults become,
	// the stack follows them. Store and FIFO are then unused.
	Default bool
}

// DefaultStack is the --impl name of the drop-in informer built with zero
// informer.Options (Stack.Default), in the store pipeline; the informer
// pipeline takes it as "default+<workq>".
const DefaultStack = "default"

// Name is the stack's impl= value for pipeline k: "<workq>",
// "<store>+<fifo>" or "<store>+<fifo>+<workq>".
func (s Stack) Name(k Kind) string { return strings.Join(s.names(k), "+") }

// IsBaseline reports whether every family k uses is client-go's.
func (s Stack) IsBaseline(k Kind) bool {
	for _, n := range s.names(k) {
		if n != labregistry.Baseline {
			return false
		}
	}
	return true
}

func (s Stack) names(k Kind) []string {
	switch {
	case s.Default && k == Store:
		return []string{DefaultStack}
	case s.Default && k == Informer:
		return []string{DefaultStack, s.WorkQ.Name}
	}
	switch k {
	case WorkQueue:
		return []string{s.WorkQ.Name}
	case Store:
		return []string{s.Store.Name, s.FIFO.Name}
	default:
		return []string{s.Store.Name, s.FIFO.Name, s.WorkQ.Name}
	}
}

// Registries are the lists stacks are resolved against; Default uses the
// families' registries, tests substitute their own entries.
type Registries struct {
	Stores labregistry.List[func(cache.Indexers) cache.ThreadSafeStore, storetest.Guarantees]
	FIFOs  labregistry.List[informer.FIFO, informertest.Guarantees]
	WorkQs labregistry.List[func() workqueue.TypedInterface[string], workqtest.Guarantees]
}

// Default returns copies of the families' registries, so a caller that
// edits or appends to them (tests building fixtures) cannot change the
// registries themselves.
func Default() Registries {
	return Registries{Stores: labregistry.Stores(), FIFOs: InformerFIFOs(), WorkQs: labregistry.WorkQueues[string]()}
}

// InformerFIFOs is the FIFO family of informer-level stacks: "clientgo",
// the RealFIFO client-go v0.37's informer pops from (the lab registry's
// "realfifo"; with the clientgo store the stack is client-go's whole
// informer), then the lab registry's others (the in-order FIFOs as
// "inorder-<name>", the DeltaFIFO family as "deltafifo-<name>").
func InformerFIFOs() labregistry.List[informer.FIFO, informertest.Guarantees] {
	out := labregistry.InformerFIFOs()
	for i, e := range out {
		if e.Name == labregistry.RealFIFOName {
			e.Name = labregistry.Baseline
			out = slices.Insert(slices.Delete(out, i, i+1), 0, e)
			break
		}
	}
	return out
}

// family is one registry seen through names, for resolution.
type family struct {
	flag  string
	names []string
}

func (r Registries) families(k Kind) []family {
	st := family{"store", r.Stores.Names()}
	ff := family{"fifo", r.FIFOs.Names()}
	wq := family{"workq", r.WorkQs.Names()}
	switch k {
	case WorkQueue:
		return []family{wq}
	case Store:
		return []family{st, ff}
	default:
		return []family{st, ff, wq}
	}
}

// stack builds the stack for pipeline k from one name per family (in the
// families' order); families k does not use get the baseline.
func (r Registries) stack(k Kind, names []string) (Stack, error) {
	s := Stack{}
	var err error
	lookup := func(flag, name string, f func(string) error) {
		if err == nil {
			if e := f(name); e != nil {
				err = fmt.Errorf("%s: %w", flag, e)
			}
		}
	}
	byFlag := map[string]string{"store": labregistry.Baseline, "fifo": labregistry.Baseline, "workq": labregistry.Baseline}
	for i, f := range r.families(k) {
		byFlag[f.flag] = names[i]
	}
	lookup("store", byFlag["store"], func(n string) (e error) { s.Store, e = r.Stores.Lookup(n); return })
	lookup("fifo", byFlag["fifo"], func(n string) (e error) { s.FIFO, e = r.FIFOs.Lookup(n); return })
	lookup("workq", byFlag["workq"], func(n string) (e error) { s.WorkQ, e = r.WorkQs.Lookup(n); return })
	return s, err
}

// Select resolves an --impl value for pipeline k: "all" (or ""), or a
// comma-separated list whose items are a uniform name ("sharded": that
// implementation in every family) or an explicit combo in Name's form
// ("mutex+sharded+ring").
//
// "all" means every name any of k's families registers, as a stack that
// uses that implementation wherever its family has one and client-go's
// elsewhere: the uniform stacks (clientgo, mutex, sharded, ring, …) plus
// single-family entries such as a lock-free store or the RealFIFO peer,
// each against client-go's other stages. "all" may be combined with
// explicit combos ("all,lockfree+ring+ring"); a combo "all" already
// selected is not repeated.
func (r Registries) Select(k Kind, spec string) ([]Stack, error) {
	fams := r.families(k)
	spec = strings.TrimSpace(spec)
	if spec == "" {
		spec = "all"
	}
	var out []Stack
	fromAll := map[string]bool{}
	seen := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "all" {
			stacks, err := r.all(k, fams)
			if err != nil {
				return nil, err
			}
			for _, s := range stacks {
				if name := s.Name(k); !seen[name] {
					seen[name], fromAll[name] = true, true
					out = append(out, s)
				}
			}
			continue
		}
		s, err := r.item(k, fams, item)
		if err != nil {
			return nil, err
		}
		name := s.Name(k)
		switch {
		case fromAll[name]:
			continue
		case seen[name]:
			return nil, fmt.Errorf("--impl: %q selected twice", name)
		}
		seen[name] = true
		out = append(out, s)
	}
	return out, nil
}

// item resolves one --impl item other than "all" for pipeline k.
func (r Registries) item(k Kind, fams []family, item string) (Stack, error) {
	parts := strings.Split(item, "+")
	if parts[0] == DefaultStack && k != WorkQueue {
		return r.defaultStack(k, parts[1:])
	}
	switch {
	case len(parts) == 1:
		parts = slices.Repeat(parts, len(fams))
	case len(parts) != len(fams):
		return Stack{}, fmt.Errorf("--impl: %q: the %s pipeline takes %d names joined by '+' (%s)", item, k, len(fams), formHint(fams))
	}
	s, err := r.stack(k, parts)
	if err != nil {
		return Stack{}, fmt.Errorf("--impl: %w", err)
	}
	return s, nil
}

// defaultStack is the DefaultStack of pipeline k; rest names its work
// queue in the informer pipeline and is empty in the store pipeline.
func (r Registries) defaultStack(k Kind, rest []string) (Stack, error) {
	names := []string{labregistry.Baseline, labregistry.Baseline}
	switch {
	case k == Informer && len(rest) == 1:
		names = append(names, rest[0])
	case k == Informer:
		return Stack{}, fmt.Errorf("--impl: the informer pipeline takes %s+<workq>", DefaultStack)
	case len(rest) > 0:
		return Stack{}, fmt.Errorf("--impl: the %s pipeline takes %s alone", k, DefaultStack)
	}
	s, err := r.stack(k, names)
	if err != nil {
		return Stack{}, fmt.Errorf("--impl: %w", err)
	}
	s.Default = true
	return s, nil
}

// all is Select's "all" set for pipeline k.
func (r Registries) all(k Kind, fams []family) ([]Stack, error) {
	var names []string
	for _, f := range fams {
		for _, n := range f.names {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	out := make([]Stack, 0, len(names))
	for _, n := range names {
		parts := make([]string, len(fams))
		for i, f := range fams {
			parts[i] = labregistry.Baseline
			if slices.Contains(f.names, n) {
				parts[i] = n
			}
		}
		s, err := r.stack(k, parts)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func formHint(fams []family) string {
	names := make([]string, len(fams))
	for i, f := range fams {
		names[i] = "<" + f.flag + ">"
	}
	return strings.Join(names, "+")
}

// Explicit resolves the per-family flags for pipeline k: each is a name, a
// comma-separated list, or "all"; the result is their product. A flag for a
// family k does not use must be empty.
func (r Registries) Explicit(k Kind, store, fifo, wq string) ([]Stack, error) {
	given := map[string]string{"store": store, "fifo": fifo, "workq": wq}
	fams := r.families(k)
	lists := make([][]string, len(fams))
	for i, f := range fams {
		spec := given[f.flag]
		delete(given, f.flag)
		if spec == "" {
			spec = labregistry.Baseline
		}
		var err error
		if lists[i], err = selectNames(f, spec); err != nil {
			return nil, err
		}
	}
	for flag, spec := range given {
		if spec != "" {
			return nil, fmt.Errorf("--%s: the %s pipeline has no %s stage", flag, k, flag)
		}
	}
	var out []Stack
	var walk func(i int, parts []string) error
	walk = func(i int, parts []string) error {
		if i == len(lists) {
			s, err := r.stack(k, parts)
			out = append(out, s)
			return err
		}
		for _, n := range lists[i] {
			if err := walk(i+1, append(parts, n)); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(0, nil)
}

func selectNames(f family, spec string) ([]string, error) {
	l := labregistry.List[struct{}, struct{}]{}
	for _, n := range f.names {
		l = append(l, labregistry.Entry[struct{}, struct{}]{Name: n})
	}
	sel, err := l.Select(spec)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", f.flag, err)
	}
	return sel.Names(), nil
}

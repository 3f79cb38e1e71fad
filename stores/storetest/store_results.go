package storetest

import (
	"slices"
	"strings"
	"testing"
)

// resultsBelongToCaller: client-go builds every List, ListKeys, ByIndex,
// Index, IndexKeys and ListIndexFuncValues answer in a fresh slice, so a
// caller may sort, filter in place or append to it, and keep it while the
// store changes. A store that handed out (part of) an internal array would
// let such a caller corrupt the store, or see its answer change under it.
// A failed call (unknown index) returns a nil slice, as client-go's do; a
// call that matches nothing returns an empty, non-nil one, as client-go's
// do (a caller may tell the two apart, or compare with reflect.DeepEqual).
func (s storeSuite) resultsBelongToCaller(t *testing.T) {
	st := s.newStore(Indexers())
	want := put(st,
		object("ns1", "a", "1", "x", "t1,t2"),
		object("ns1", "b", "1", "x", "t1"),
		object("ns2", "c", "1", "y", "t2"),
	)
	probe := object("ns1", "probe", "1", "x", "t1,t2")
	type answer struct {
		name string
		call func() (any, error)
	}
	answers := []answer{
		{"List", func() (any, error) { return st.List(), nil }},
		{"ListKeys", func() (any, error) { return st.ListKeys(), nil }},
		{"ByIndex", func() (any, error) { return st.ByIndex(appIndex, "x") }},
		{"Index", func() (any, error) { return st.Index(tagsIndex, probe) }},
		{"IndexKeys", func() (any, error) { return st.IndexKeys(nsIndex, "ns1") }},
		{"ListIndexFuncValues", func() (any, error) { return st.ListIndexFuncValues(tagsIndex), nil }},
	}
	// Scribble over and append to every answer, then ask again.
	kept := make([]string, len(answers))
	for i, a := range answers {
		got, err := a.call()
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		kept[i] = describeAnswer(got)
		scribble(got)
	}
	verifyExact(t, st, get(st), Indexers(), want)
	for i, a := range answers {
		got, _ := a.call()
		if d := describeAnswer(got); d != kept[i] {
			t.Errorf("%s after the caller overwrote an earlier answer = %s, want %s", a.name, d, kept[i])
		}
	}

	// An answer must not change when the store does.
	held := make([]any, len(answers))
	for i, a := range answers {
		held[i], _ = a.call()
	}
	for _, o := range []any{object("ns1", "a", "2", "y", "t3"), object("ns1", "d", "2", "x", "t1")} {
		st.Update(keyOf(o), o)
	}
	st.Delete("ns1/b")
	for i, a := range answers {
		if d := describeAnswer(held[i]); d != kept[i] {
			t.Errorf("%s answer held by the caller changed to %s after later writes, was %s", a.name, d, kept[i])
		}
	}

	nowhere := object("ns1", "nowhere", "1", "x", "t8,t9") // two tag values, neither indexed
	for name, call := range map[string]func() (any, error){
		"ByIndex":             func() (any, error) { return st.ByIndex(appIndex, "no-such-value") },
		"Index of one value":  func() (any, error) { return st.Index(tagsIndex, object("ns1", "nowhere", "1", "x", "t9")) },
		"Index of two values": func() (any, error) { return st.Index(tagsIndex, nowhere) },
		"IndexKeys":           func() (any, error) { return st.IndexKeys(nsIndex, "no-such-namespace") },
	} {
		got, err := call()
		if err != nil || !isEmptyNonNilSlice(got) {
			t.Errorf("%s matching nothing = (%#v, %v), want an empty non-nil slice as client-go's", name, got, err)
		}
	}
	for name, call := range map[string]func() (any, error){
		"ByIndex":   func() (any, error) { return st.ByIndex("no-such-index", "x") },
		"Index":     func() (any, error) { return st.Index("no-such-index", probe) },
		"IndexKeys": func() (any, error) { return st.IndexKeys("no-such-index", "x") },
	} {
		got, err := call()
		if err == nil || !isNilSlice(got) {
			t.Errorf("%s on an unknown index = (%#v, %v), want (nil, error) as client-go's", name, got, err)
		}
	}
}

// scribble overwrites every element of a []any or []string answer and
// appends to it, as a caller sorting or filtering in place would.
func scribble(answer any) {
	switch a := answer.(type) {
	case []any:
		for i := range a {
			a[i] = nil
		}
		_ = append(a, nil)
	case []string:
		for i := range a {
			a[i] = "scribbled"
		}
		_ = append(a, "scribbled")
	}
}

// describeAnswer renders an answer in a canonical order.
func describeAnswer(answer any) string {
	var parts []string
	switch a := answer.(type) {
	case []any:
		for _, o := range a {
			parts = append(parts, describe(o))
		}
	case []string:
		parts = slices.Clone(a)
	}
	slices.Sort(parts)
	return "[" + strings.Join(parts, ", ") + "]"
}

func isEmptyNonNilSlice(v any) bool {
	switch a := v.(type) {
	case []any:
		return a != nil && len(a) == 0
	case []string:
		return a != nil && len(a) == 0
	}
	return false
}

func isNilSlice(v any) bool {
	switch a := v.(type) {
	case []any:
		return a == nil
	case []string:
		return a == nil
	}
	return false
}

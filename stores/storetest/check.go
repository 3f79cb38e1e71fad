package storetest

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"k8s.io/client-go/tools/cache"
)

// reader is the read side that cache.ThreadSafeStore and cache.Indexer share.
type reader interface {
	List() []any
	ListKeys() []string
	Index(indexName string, obj any) ([]any, error)
	IndexKeys(indexName, indexedValue string) ([]string, error)
	ListIndexFuncValues(indexName string) []string
	ByIndex(indexName, indexedValue string) ([]any, error)
}

// getter reads one key (ThreadSafeStore.Get or Indexer.GetByKey).
type getter func(key string) (any, bool)

// failer is the subset of testing.TB the checks report through.
type failer interface {
	Helper()
	Errorf(format string, args ...any)
}

// verifyExact checks that the store holds exactly want (key → object, by
// identity) and that every index equals a recomputation from want with
// indexers. It returns false after reporting the first few differences.
func verifyExact(t failer, r reader, get getter, indexers cache.Indexers, want map[string]any) bool {
	t.Helper()
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }

	wantKeys := slices.Sorted(maps.Keys(want))
	if got := sorted(r.ListKeys()); !slices.Equal(got, wantKeys) {
		add("ListKeys = %v, want %v", got, wantKeys)
	}
	if d := diffObjects(r.List(), want, wantKeys); d != "" {
		add("List: %s", d)
	}
	for _, k := range wantKeys {
		if got, ok := get(k); !ok || got != want[k] {
			add("Get(%q) = %v, %v; want the stored object", k, describe(got), ok)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(indexers)) {
		exp := expectedIndex(indexers[name], want)
		wantValues := slices.Sorted(maps.Keys(exp))
		if got := sorted(r.ListIndexFuncValues(name)); !slices.Equal(got, wantValues) {
			add("ListIndexFuncValues(%q) = %v, want %v", name, got, wantValues)
		}
		for _, v := range wantValues {
			keys := sorted(exp[v])
			gotKeys, err := r.IndexKeys(name, v)
			if err != nil || !slices.Equal(sorted(gotKeys), keys) {
				add("IndexKeys(%q, %q) = %v, %v; want %v", name, v, sorted(gotKeys), err, keys)
			}
			objs, err := r.ByIndex(name, v)
			if err != nil {
				add("ByIndex(%q, %q): %v", name, v, err)
			} else if d := diffObjects(objs, want, keys); d != "" {
				add("ByIndex(%q, %q): %s", name, v, d)
			}
		}
	}
	for i, d := range diffs {
		if i == 10 {
			t.Errorf("... and %d more differences", len(diffs)-i)
			break
		}
		t.Errorf("%s", d)
	}
	return len(diffs) == 0
}

// expectedIndex recomputes one index from scratch: value → keys.
func expectedIndex(fn cache.IndexFunc, want map[string]any) map[string][]string {
	exp := make(map[string][]string)
	for k, obj := range want {
		if obj == nil {
			continue
		}
		values, err := fn(obj)
		if err != nil {
			continue // the store kept no object that fails indexing
		}
		for _, v := range dedup(values) {
			exp[v] = append(exp[v], k)
		}
	}
	return exp
}

// diffObjects compares a returned object list with want restricted to keys:
// each object exactly once, by identity. It returns "" when they match.
func diffObjects(got []any, want map[string]any, keys []string) string {
	expected := make(map[any]string, len(keys))
	for _, k := range keys {
		expected[want[k]] = k
	}
	var extra, dup []string
	seen := make(map[any]bool, len(got))
	for _, o := range got {
		if seen[o] {
			dup = append(dup, describe(o))
		}
		seen[o] = true
		if _, ok := expected[o]; !ok {
			extra = append(extra, describe(o))
		}
	}
	var missing []string
	for o, k := range expected {
		if !seen[o] {
			missing = append(missing, k)
		}
	}
	if len(extra)+len(dup)+len(missing) == 0 {
		return ""
	}
	sort.Strings(missing)
	return fmt.Sprintf("missing %v, unexpected %v, duplicated %v", missing, extra, dup)
}

// describe names an object in failure messages: key@resourceVersion.
func describe(o any) string {
	m, err := metaOf(o)
	if err != nil {
		return fmt.Sprintf("%v", o)
	}
	k := m.GetName()
	if ns := m.GetNamespace(); ns != "" {
		k = ns + "/" + k
	}
	return k + "@" + m.GetResourceVersion()
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func dedup(values []string) []string {
	out := sorted(values)
	return slices.Compact(out)
}

package badinput

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/stores"
)

// storeCtors builds each variant with Options, so that a probe can see the
// errors a write reports; every registry entry but client-go's must be here.
var storeCtors = map[string]func(stores.Options) (cache.ThreadSafeStore, error){
	"mutex":    func(o stores.Options) (cache.ThreadSafeStore, error) { return stores.NewMutex(o) },
	"sharded":  func(o stores.Options) (cache.ThreadSafeStore, error) { return stores.NewSharded(o) },
	"lockfree": func(o stores.Options) (cache.ThreadSafeStore, error) { return stores.NewLockFree(o) },
	"snapshot": func(o stores.Options) (cache.ThreadSafeStore, error) { return stores.NewSnapshot(o) },
}

// storeImpl builds a store with indexers; reported collects the errors a
// variant reports for writes that have no error result.
type storeImpl struct {
	name string
	new  func(indexers cache.Indexers, reported *[]error) cache.ThreadSafeStore
}

func storeImpls() []impl[storeImpl] {
	var out []impl[storeImpl]
	for _, e := range registry.Stores() {
		si := storeImpl{name: e.Name}
		if e.Name == registry.Baseline {
			si.new = func(indexers cache.Indexers, _ *[]error) cache.ThreadSafeStore { return e.New(indexers) }
		} else {
			ctor, ok := storeCtors[e.Name]
			if !ok {
				panic("badinput: storeCtors lacks store " + e.Name)
			}
			si.new = func(indexers cache.Indexers, reported *[]error) cache.ThreadSafeStore {
				return registry.Must(ctor(stores.Options{Indexers: indexers, ErrorHandler: func(err error) {
					*reported = append(*reported, err)
				}}))
			}
		}
		out = append(out, impl[storeImpl]{e.Name, e.Name == registry.Baseline, si})
	}
	return out
}

// labelled is an object whose "v" index value is v; v "fail" makes the
// index function fail.
func labelled(name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"v": v}}}
}

var errBadIndex = errors.New("injected index error")

// vIndex indexes an object by its "v" label, reading it through ObjectMeta
// as client-go's index functions do.
func vIndex(obj any) ([]string, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	if v := m.GetLabels()["v"]; v == "fail" {
		return nil, errBadIndex
	} else {
		return []string{v}, nil
	}
}

func metaOf(obj any) (metav1.Object, error) {
	if m, ok := obj.(metav1.Object); ok {
		return m, nil
	}
	return nil, fmt.Errorf("object has no meta: %T", obj)
}

// storeState describes a store's content and its "v" index.
func storeState(s cache.ThreadSafeStore) string {
	var items []string
	for _, k := range s.ListKeys() {
		obj, _ := s.Get(k)
		items = append(items, k+"="+describeStored(obj))
	}
	slices.Sort(items)
	var idx []string
	for _, v := range s.ListIndexFuncValues("v") {
		keys, _ := s.IndexKeys("v", v)
		slices.Sort(keys)
		idx = append(idx, v+"→"+strings.Join(keys, ","))
	}
	slices.Sort(idx)
	return "store {" + strings.Join(items, " ") + "}, index v {" + strings.Join(idx, " ") + "}"
}

func describeStored(obj any) string {
	switch o := obj.(type) {
	case nil:
		return "nil"
	case *corev1.ConfigMap:
		return o.Labels["v"]
	default:
		return fmt.Sprintf("%T", obj)
	}
}

// outcome describes a write without an error result: a panic, a reported
// error (which must wrap cause), or nothing, then the store's state.
func outcome(s cache.ThreadSafeStore, reported *[]error, cause error, write func()) string {
	out := "accepted"
	if msg := panics(write); msg != "" {
		out = "panics (" + msg + ")"
	}
	for _, err := range *reported {
		var ie *stores.IndexError
		if errors.As(err, &ie) && (cause == nil || errors.Is(err, cause)) {
			out = "rejected: reports an IndexError naming key and index"
		} else {
			out = "reports: " + err.Error()
		}
	}
	*reported = nil
	return out + "; " + storeState(s)
}

// onStore runs write on a store holding key k with v=old, and describes
// the outcome.
func onStore(si storeImpl, cause error, write func(s cache.ThreadSafeStore)) string {
	var reported []error
	s := si.new(cache.Indexers{"v": vIndex}, &reported)
	s.Add("k", labelled("k", "old"))
	return outcome(s, &reported, cause, func() { write(s) })
}

// storeUpdate writes obj over key k holding v=old.
func storeUpdate(si storeImpl, obj any, cause error) string {
	return onStore(si, cause, func(s cache.ThreadSafeStore) { s.Update("k", obj) })
}

var storeCases = []badCase[storeImpl]{
	{
		name:     "nil object (Update)",
		upstream: "accepted; store {k=nil}, index v {}",
		note:     "index functions are not called for nil: the key is stored and indexed nowhere",
		probe: func(t *testing.T, si storeImpl) string {
			return storeUpdate(si, nil, nil)
		},
	},
	{
		name:     "object without ObjectMeta (Update, with a metadata index function)",
		upstream: `panics (unable to calculate an index entry for key "k" on index "v": object has no meta: badinput.noMeta); store {k=badinput.noMeta}, index v {old→k}`,
		variants: "rejected: reports an IndexError naming key and index; store {k=old}, index v {old→k}",
		note:     "client-go panics with the object stored but its index entries stale (half-applied); the variants keep the previous object and index entries and hand the error to Options.ErrorHandler (the ...Checked methods return it)",
		probe: func(t *testing.T, si storeImpl) string {
			return storeUpdate(si, noMeta{"x"}, nil)
		},
	},
	{
		name:     "index function error (Update)",
		upstream: `panics (unable to calculate an index entry for key "k" on index "v": injected index error); store {k=fail}, index v {old→k}`,
		variants: "rejected: reports an IndexError naming key and index; store {k=old}, index v {old→k}",
		note:     "as above",
		probe: func(t *testing.T, si storeImpl) string {
			return storeUpdate(si, labelled("k", "fail"), errBadIndex)
		},
	},
	{
		name:     "index function error (Replace)",
		upstream: `panics (unable to calculate an index entry for key "b" on index "v": injected index error); store {b=fail}, index v {}`,
		variants: "rejected: reports an IndexError naming key and index; store {k=old}, index v {old→k}",
		note:     "client-go has swapped the items in when it panics; the variants build the new content aside and keep the old",
		probe: func(t *testing.T, si storeImpl) string {
			return onStore(si, errBadIndex, func(s cache.ThreadSafeStore) {
				// One object only: client-go indexes a map, so with more the
				// panic would leave a random part indexed.
				s.Replace(map[string]any{"b": labelled("b", "fail")}, "1")
			})
		},
	},
	{
		name:     "index function error (Index query)",
		upstream: "error wrapping the index function's error",
		probe: func(t *testing.T, si storeImpl) string {
			s := si.new(cache.Indexers{"v": vIndex}, new([]error))
			_, err := s.Index("v", labelled("q", "fail"))
			if !errors.Is(err, errBadIndex) {
				return fmt.Sprintf("error %v", err)
			}
			return "error wrapping the index function's error"
		},
	},
	{
		name:     "unknown index name (Index, ByIndex, IndexKeys, ListIndexFuncValues)",
		upstream: "error: Index with name nope does not exist (ListIndexFuncValues: empty)",
		probe: func(t *testing.T, si storeImpl) string {
			s := si.new(cache.Indexers{"v": vIndex}, new([]error))
			_, e1 := s.Index("nope", labelled("q", "x"))
			_, e2 := s.ByIndex("nope", "x")
			_, e3 := s.IndexKeys("nope", "x")
			for _, e := range []error{e2, e3} {
				if fmt.Sprint(e) != fmt.Sprint(e1) {
					return fmt.Sprintf("errors differ: %v / %v / %v", e1, e2, e3)
				}
			}
			return fmt.Sprintf("error: %v (ListIndexFuncValues: %s)", e1, emptyOr(s.ListIndexFuncValues("nope")))
		},
	},
	{
		name:     "conflicting AddIndexers",
		upstream: "error naming the conflict; nothing added (indexers [v])",
		probe: func(t *testing.T, si storeImpl) string {
			s := si.new(cache.Indexers{"v": vIndex}, new([]error))
			s.Add("k", labelled("k", "old"))
			err := s.AddIndexers(cache.Indexers{"v": vIndex, "w": vIndex})
			if err == nil || !strings.Contains(err.Error(), "conflict") || !strings.Contains(err.Error(), "v") {
				return fmt.Sprintf("error %v", err)
			}
			return "error naming the conflict; nothing added (indexers " + indexerNames(s) + ")"
		},
	},
	{
		name:     "AddIndexers whose function fails on a stored object",
		upstream: `panics (unable to calculate an index entry for key "k" on index "w": injected index error); indexers [v w]`,
		variants: "error: an IndexError naming key and index; nothing added (indexers [v])",
		note:     "client-go panics with the indexer registered and its index partly built",
		probe: func(t *testing.T, si storeImpl) string {
			s := si.new(cache.Indexers{"v": vIndex}, new([]error))
			s.Add("k", labelled("k", "fail-w"))
			failW := func(obj any) ([]string, error) { return nil, errBadIndex }
			var err error
			if msg := panics(func() { err = s.AddIndexers(cache.Indexers{"w": failW}) }); msg != "" {
				return "panics (" + msg + "); indexers " + indexerNames(s)
			}
			var ie *stores.IndexError
			if !errors.As(err, &ie) || !errors.Is(err, errBadIndex) {
				return fmt.Sprintf("error %v; indexers %s", err, indexerNames(s))
			}
			return "error: an IndexError naming key and index; nothing added (indexers " + indexerNames(s) + ")"
		},
	},
	{
		name:     "Delete of an unknown key",
		upstream: "ignored; store {k=old}, index v {old→k}",
		probe: func(t *testing.T, si storeImpl) string {
			return strings.Replace(onStore(si, nil, func(s cache.ThreadSafeStore) { s.Delete("unknown") }), "accepted", "ignored", 1)
		},
	},
	{
		name:     "out-of-range options (Shards)",
		upstream: "no such option",
		variants: "constructor returns an error quoting the bad value",
		probe: func(t *testing.T, si storeImpl) string {
			ctor, ok := storeCtors[si.name]
			if !ok {
				return "no such option"
			}
			bad := 4 // only a Sharded store takes shards
			if si.name == "sharded" {
				bad = -1
			}
			_, err := ctor(stores.Options{Shards: bad})
			if err == nil {
				return "accepted"
			}
			return quotes(err, bad)
		},
	},
}

func emptyOr(s []string) string {
	if len(s) == 0 {
		return "empty"
	}
	return fmt.Sprint(s)
}

func indexerNames(s cache.ThreadSafeStore) string {
	var names []string
	for n := range s.GetIndexers() {
		names = append(names, n)
	}
	slices.Sort(names)
	return fmt.Sprint(names)
}

func storesFamily() family {
	return describe("Indexed stores (stores; client-go cache.NewThreadSafeStore)", storeCases, storeImpls())
}

func TestStoreBadInput(t *testing.T) { runCases(t, storeCases, storeImpls()) }

package stores_test

import (
	"errors"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/stores"
)

// ours builds each of this package's stores that write in place with opts
// (and four shards for the sharded one); Snapshot, which copies on every
// write, has tests of its own.
func ours(t *testing.T, opts stores.Options) map[string]stores.Store {
	t.Helper()
	sharded := opts
	sharded.Shards = 4
	m, err1 := stores.NewMutex(opts)
	s, err2 := stores.NewSharded(sharded)
	l, err3 := stores.NewLockFree(opts)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	return map[string]stores.Store{"mutex": m, "sharded": s, "lockfree": l}
}

func TestErrorHandlerReceivesIndexErrors(t *testing.T) {
	errBoom := errors.New("boom")
	failing := cache.Indexers{"fails": func(any) ([]string, error) { return nil, errBoom }}
	var got []error
	for name, s := range ours(t, stores.Options{Indexers: failing, ErrorHandler: func(err error) { got = append(got, err) }}) {
		got = nil
		s.Add("ns/a", testobj.Meta("ns", "a", "1"))
		s.Replace(map[string]any{"ns/b": testobj.Meta("ns", "b", "1")}, "2")
		var ie *stores.IndexError
		if len(got) != 2 || !errors.As(got[0], &ie) || ie.Key != "ns/a" || ie.Index != "fails" || !errors.Is(got[1], errBoom) {
			t.Errorf("%s: handler got %v, want two *IndexError for ns/a and ns/b on index fails", name, got)
		}
		if len(s.List()) != 0 {
			t.Errorf("%s: failed writes left objects behind: %v", name, s.List())
		}
	}
}

func TestEmptyOnlyIndexers(t *testing.T) {
	extra := cache.Indexers{"app": testobj.LabelIndex}
	for name, s := range ours(t, stores.Options{EmptyOnlyIndexers: true}) {
		if err := s.AddIndexers(extra); err != nil {
			t.Errorf("%s: AddIndexers on an empty store: %v", name, err)
		}
		s.Add("ns/a", testobj.Meta("ns", "a", "1"))
		if err := s.AddIndexers(cache.Indexers{"more": testobj.LabelIndex}); !errors.Is(err, stores.ErrLateIndexers) {
			t.Errorf("%s: AddIndexers on a non-empty store: error %v, want ErrLateIndexers", name, err)
		}
	}
}

func TestConstructorsRejectBadShards(t *testing.T) {
	for _, n := range []int{-1, 1 << 20} {
		if _, err := stores.NewSharded(stores.Options{Shards: n}); err == nil {
			t.Errorf("NewSharded with %d shards succeeded", n)
		}
	}
	if _, err := stores.NewMutex(stores.Options{Shards: 2}); err == nil {
		t.Error("NewMutex with shards succeeded")
	}
	if _, err := stores.NewLockFree(stores.Options{Shards: 2}); err == nil {
		t.Error("NewLockFree with shards succeeded")
	}
	if _, err := stores.NewSnapshot(stores.Options{Shards: 2}); err == nil {
		t.Error("NewSnapshot with shards succeeded")
	}
}

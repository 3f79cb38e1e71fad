package stores_test

import (
	"errors"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/stores"
)

// ours builds each of this package's stores with options.
func ours(t *testing.T, ix cache.Indexers, opts ...stores.Option) map[string]stores.Store {
	sharded, err := stores.NewSharded(ix, 4, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]stores.Store{
		"mutex":    stores.NewMutex(ix, opts...),
		"sharded":  sharded,
		"lockfree": stores.NewLockFree(ix, opts...),
	}
}

func TestErrorHandlerReceivesIndexErrors(t *testing.T) {
	errBoom := errors.New("boom")
	failing := cache.Indexers{"fails": func(any) ([]string, error) { return nil, errBoom }}
	var got []error
	for name, s := range ours(t, failing, stores.WithErrorHandler(func(err error) { got = append(got, err) })) {
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
	for name, s := range ours(t, cache.Indexers{}, stores.WithEmptyOnlyIndexers()) {
		if err := s.AddIndexers(extra); err != nil {
			t.Errorf("%s: AddIndexers on an empty store: %v", name, err)
		}
		s.Add("ns/a", testobj.Meta("ns", "a", "1"))
		if err := s.AddIndexers(cache.Indexers{"more": testobj.LabelIndex}); !errors.Is(err, stores.ErrLateIndexers) {
			t.Errorf("%s: AddIndexers on a non-empty store: error %v, want ErrLateIndexers", name, err)
		}
	}
}

func TestNewShardedRejectsBadCounts(t *testing.T) {
	for _, n := range []int{-1, 1 << 20} {
		if _, err := stores.NewSharded(cache.Indexers{}, n); err == nil {
			t.Errorf("NewSharded(%d) succeeded", n)
		}
	}
}

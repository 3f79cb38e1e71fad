package stores_test

import (
	"slices"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/stores"
)

// TestSnapshotIndexFuncChangesItsMind: Snapshot finds the values a stored
// object leaves by calling the IndexFunc on it again, as client-go does.
// When that call fails or answers differently than when the object was
// stored, the key must still leave every value it had, on update and on
// delete, so that no index answer lists a key under a stale value.
func TestSnapshotIndexFuncChangesItsMind(t *testing.T) {
	// Mode 0: the label. Mode 1: "other" for objects at resourceVersion 1
	// (those already stored). Mode 2: an error for those.
	var mode atomic.Int32
	fickle := func(obj any) ([]string, error) {
		if m, _ := meta.Accessor(obj); m.GetResourceVersion() == "1" {
			switch mode.Load() {
			case 1:
				return []string{"other"}, nil
			case 2:
				return nil, errFickle
			}
		}
		return testobj.LabelIndex(obj)
	}
	s, err := stores.NewSnapshot(stores.Options{Indexers: cache.Indexers{"app": fickle}, ErrorHandler: func(error) {}})
	if err != nil {
		t.Fatal(err)
	}
	s.Add("ns/a", testobj.Meta("ns", "a", "1", testobj.AppLabel, "x"))
	s.Add("ns/b", testobj.Meta("ns", "b", "1", testobj.AppLabel, "x"))

	mode.Store(1) // a's stored object now seems to have "other", not "x"
	s.Update("ns/a", testobj.Meta("ns", "a", "2", testobj.AppLabel, "y"))
	mode.Store(2) // b's stored object now makes the IndexFunc fail
	s.Delete("ns/b")
	mode.Store(0)

	if keys, _ := s.IndexKeys("app", "x"); len(keys) != 0 {
		t.Errorf("IndexKeys(app, x) = %v: keys left under a value their objects no longer have", keys)
	}
	if keys, _ := s.IndexKeys("app", "y"); !slices.Equal(keys, []string{"ns/a"}) {
		t.Errorf("IndexKeys(app, y) = %v, want [ns/a]", keys)
	}
	if values := s.ListIndexFuncValues("app"); !slices.Equal(values, []string{"y"}) {
		t.Errorf("ListIndexFuncValues(app) = %v, want [y]", values)
	}
	if keys := s.ListKeys(); !slices.Equal(keys, []string{"ns/a"}) {
		t.Errorf("ListKeys() = %v, want [ns/a]", keys)
	}
}

var errFickle = fickleError{}

type fickleError struct{}

func (fickleError) Error() string { return "the IndexFunc changed its mind" }

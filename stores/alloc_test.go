package stores_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/queuelab/queuelab/internal/testobj"
)

// TestUpdateAllocations: with index functions that do not allocate (the
// lab's fixture, and cache.MetaNamespaceIndexFunc, which the stores compute
// themselves), an update that keeps an object's type and index values (the
// common informer update) allocates nothing, in every store of ours.
func TestUpdateAllocations(t *testing.T) {
	objs := [2][]*metav1.PartialObjectMetadata{testobj.Population(64, 4, 8), testobj.Population(64, 4, 8)}
	keys := make([]string, len(objs[0]))
	for i, o := range objs[0] {
		keys[i] = testobj.Key(o)
	}
	for name, s := range ours(t, testobj.Indexers()) {
		for i, o := range objs[0] {
			s.Add(keys[i], o)
		}
		i := 0
		got := testing.AllocsPerRun(200, func() {
			j := i % len(keys)
			s.Update(keys[j], objs[i%2][j])
			i++
		})
		if got != 0 {
			t.Errorf("%s: Update allocates %v times per call", name, got)
		}
	}
}

package pipeline

import (
	"context"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

// TestObjectsAloneCountsEveryObject: the heap measured for the objects
// held alone is at least their Pod structs.
func TestObjectsAloneCountsEveryObject(t *testing.T) {
	_, objs := smallStream(t)
	const n = 500
	got := objectsAlone(objs, n)
	assert.GreaterOrEqual(t, got, uint64(n*unsafe.Sizeof(corev1.Pod{})))
}

// TestFootprintIsStorePipelineOnly: the relist windows close on the store
// pipeline's handler; the other pipelines refuse the option.
func TestFootprintIsStorePipelineOnly(t *testing.T) {
	s, objs := smallStream(t)
	o := testOptions()
	o.Footprint = true
	for _, k := range []Kind{Informer, WorkQueue} {
		_, err := Run(context.Background(), k, baseline(t), s, objs, o)
		assert.Error(t, err, "%s", k)
	}
}

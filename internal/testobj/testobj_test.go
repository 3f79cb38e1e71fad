package testobj_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPopulationIsKeyedLikeClientGo(t *testing.T) {
	objs := testobj.Population(250, 10, 100)
	require.Len(t, objs, 250)
	for _, o := range objs[:20] {
		k, err := cache.MetaNamespaceKeyFunc(o)
		require.NoError(t, err)
		assert.Equal(t, k, testobj.Key(o))
	}
	assert.Equal(t, "ns-3/obj-13", testobj.Key(objs[13]))
	vals, err := testobj.LabelIndex(objs[13])
	require.NoError(t, err)
	assert.Equal(t, []string{"app-13"}, vals)
}

func TestLabelIndexRejectsNonObjects(t *testing.T) {
	_, err := testobj.LabelIndex("not an object")
	assert.ErrorContains(t, err, "does not carry metav1.ObjectMeta")
	vals, err := testobj.LabelIndex(testobj.Meta("ns", "n", "1"))
	require.NoError(t, err)
	assert.Empty(t, vals)
}

func TestLabelIndexSharesItsResults(t *testing.T) {
	a, b := testobj.Meta("ns", "a", "1", testobj.AppLabel, "x"), testobj.Meta("ns", "b", "1", testobj.AppLabel, "x")
	va, err := testobj.LabelIndex(a)
	require.NoError(t, err)
	vb, err := testobj.LabelIndex(b)
	require.NoError(t, err)
	assert.Equal(t, []string{"x"}, va)
	assert.Same(t, &va[0], &vb[0], "one interned slice per value")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = testobj.LabelIndex(a) }))
}

func TestLabelIndexBeyondTheInternTable(t *testing.T) {
	for i := range 5000 {
		v := "v" + strconv.Itoa(i)
		got, err := testobj.LabelIndex(testobj.Meta("ns", "n", "1", testobj.AppLabel, v))
		require.NoError(t, err)
		require.Equal(t, []string{v}, got)
	}
}

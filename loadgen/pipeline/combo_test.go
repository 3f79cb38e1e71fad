package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func names(k Kind, stacks []Stack) []string {
	var out []string
	for _, s := range stacks {
		out = append(out, s.Name(k))
	}
	return out
}

// registriesWith is a fixed fixture: each family's clientgo entry plus
// copies under other names, so the expectations below do not move when the
// real registries grow.
func registriesWith() Registries {
	r := Default()
	r.Stores, r.FIFOs, r.WorkQs = r.Stores[:1], r.FIFOs[:1], r.WorkQs[:1]
	base := r.Stores[0]
	for _, n := range []string{"mutex", "sharded", "lockfree"} {
		e := base
		e.Name = n
		r.Stores = append(r.Stores, e)
	}
	for _, n := range []string{"mutex", "sharded"} {
		f := r.FIFOs[0]
		f.Name = n
		r.FIFOs = append(r.FIFOs, f)
		w := r.WorkQs[0]
		w.Name = n
		r.WorkQs = append(r.WorkQs, w)
	}
	return r
}

func TestSelectAllIsUniformStacksPlusSingleFamilyEntries(t *testing.T) {
	r := registriesWith()
	stacks, err := r.Select(Informer, "all")
	require.NoError(t, err)
	assert.Equal(t, []string{"clientgo+clientgo+clientgo", "mutex+mutex+mutex", "sharded+sharded+sharded", "lockfree+clientgo+clientgo"}, names(Informer, stacks))
	assert.True(t, stacks[0].IsBaseline(Informer))

	stacks, err = r.Select(Store, "lockfree+sharded,clientgo")
	require.NoError(t, err)
	assert.Equal(t, []string{"lockfree+sharded", "clientgo+clientgo"}, names(Store, stacks))

	stacks, err = r.Select(Informer, "all,lockfree+sharded+mutex,mutex")
	require.NoError(t, err)
	assert.Equal(t, []string{"clientgo+clientgo+clientgo", "mutex+mutex+mutex", "sharded+sharded+sharded", "lockfree+clientgo+clientgo", "lockfree+sharded+mutex"}, names(Informer, stacks),
		"all plus combos: combos all already has are not repeated")

	stacks, err = r.Select(WorkQueue, "all")
	require.NoError(t, err)
	assert.Equal(t, []string{"clientgo", "mutex", "sharded"}, names(WorkQueue, stacks))
}

func TestSelectErrorsNameTheFlag(t *testing.T) {
	r := registriesWith()
	_, err := r.Select(Informer, "lockfree")
	assert.ErrorContains(t, err, `--impl: fifo: unknown implementation "lockfree"`)
	_, err = r.Select(Informer, "a+b")
	assert.ErrorContains(t, err, "<store>+<fifo>+<workq>")
	_, err = r.Select(Informer, "clientgo,clientgo")
	assert.ErrorContains(t, err, "selected twice")
}

// TestSelectDefaultIsTheZeroOptionsInformer: "default" names the drop-in
// built with zero informer.Options, alone in the store pipeline and with a
// work queue in the informer pipeline; it is no baseline.
func TestSelectDefaultIsTheZeroOptionsInformer(t *testing.T) {
	r := registriesWith()
	stacks, err := r.Select(Store, "clientgo,default")
	require.NoError(t, err)
	assert.Equal(t, []string{"clientgo+clientgo", "default"}, names(Store, stacks))
	assert.True(t, stacks[1].Default)
	assert.False(t, stacks[1].IsBaseline(Store))

	stacks, err = r.Select(Informer, "default+mutex")
	require.NoError(t, err)
	assert.Equal(t, []string{"default+mutex"}, names(Informer, stacks))

	_, err = r.Select(Informer, "default")
	assert.ErrorContains(t, err, "default+<workq>")
	_, err = r.Select(Store, "default+mutex")
	assert.ErrorContains(t, err, "takes default alone")
	_, err = r.Select(Store, "default,default")
	assert.ErrorContains(t, err, "selected twice")
}

func TestExplicitIsTheProduct(t *testing.T) {
	r := registriesWith()
	stacks, err := r.Explicit(Informer, "lockfree,sharded", "", "mutex")
	require.NoError(t, err)
	assert.Equal(t, []string{"lockfree+clientgo+mutex", "sharded+clientgo+mutex"}, names(Informer, stacks))
	_, err = r.Explicit(WorkQueue, "mutex", "", "")
	assert.ErrorContains(t, err, "--store: the workqueue pipeline has no store stage")
	_, err = r.Explicit(Informer, "", "nosuch", "")
	assert.ErrorContains(t, err, `--fifo: unknown implementation "nosuch"`)
}

func TestParseKinds(t *testing.T) {
	k, err := ParseKinds("store,informer")
	require.NoError(t, err)
	assert.Equal(t, []Kind{Store, Informer}, k)
	_, err = ParseKinds("nope")
	assert.Error(t, err)
}

package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// names is the names stacks go by in pipeline k.
func names(k Kind, stacks []Stack) []string {
	var out []string
	for _, s := range stacks {
		out = append(out, s.Name(k))
	}
	return out
}

// selected is the names of the stacks r.Select(k, flag) picks; an error
// fails the test.
func selected(t *testing.T, r Registries, k Kind, flag string) []string {
	t.Helper()
	stacks, err := r.Select(k, flag)
	require.NoError(t, err)
	return names(k, stacks)
}

// selectErr is the error r.Select(k, flag) returns.
func selectErr(r Registries, k Kind, flag string) error {
	_, err := r.Select(k, flag)
	return err
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

	assert.Equal(t, []string{"lockfree+sharded", "clientgo+clientgo"}, selected(t, r, Store, "lockfree+sharded,clientgo"))

	assert.Equal(t, []string{"clientgo+clientgo+clientgo", "mutex+mutex+mutex", "sharded+sharded+sharded", "lockfree+clientgo+clientgo", "lockfree+sharded+mutex"}, selected(t, r, Informer, "all,lockfree+sharded+mutex,mutex"),
		"all plus combos: combos all already has are not repeated")

	assert.Equal(t, []string{"clientgo", "mutex", "sharded"}, selected(t, r, WorkQueue, "all"))
}

func TestSelectErrorsNameTheFlag(t *testing.T) {
	r := registriesWith()
	assert.ErrorContains(t, selectErr(r, Informer, "lockfree"), `--impl: fifo: unknown implementation "lockfree"`)
	assert.ErrorContains(t, selectErr(r, Informer, "a+b"), "<store>+<fifo>+<workq>")
	assert.ErrorContains(t, selectErr(r, Informer, "clientgo,clientgo"), "selected twice")
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

	assert.Equal(t, []string{"default+mutex"}, selected(t, r, Informer, "default+mutex"))

	assert.ErrorContains(t, selectErr(r, Informer, "default"), "default+<workq>")
	assert.ErrorContains(t, selectErr(r, Store, "default+mutex"), "takes default alone")
	assert.ErrorContains(t, selectErr(r, Store, "default,default"), "selected twice")
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

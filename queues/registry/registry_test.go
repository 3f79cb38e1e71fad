package registry_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/queues/registry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type guarantees struct{ FIFO bool }

var list = registry.List[func() int, guarantees]{
	{Name: registry.Baseline, New: func() int { return 0 }, Guarantees: guarantees{FIFO: true}},
	{Name: "sharded", New: func() int { return 1 }},
}

func TestLookup(t *testing.T) {
	e, err := list.Lookup("sharded")
	require.NoError(t, err)
	assert.Equal(t, 1, e.New())

	_, err = list.Lookup("nope")
	require.EqualError(t, err, `unknown implementation "nope" (known: clientgo, sharded)`)
}

func TestSelect(t *testing.T) {
	all, err := list.Select("all")
	require.NoError(t, err)
	assert.Equal(t, []string{"clientgo", "sharded"}, all.Names())

	all[0].Name = "mutated"
	assert.Equal(t, registry.Baseline, list[0].Name, "Select must not alias the registry")

	some, err := list.Select(" sharded , clientgo ")
	require.NoError(t, err)
	assert.Equal(t, []string{"sharded", "clientgo"}, some.Names())

	_, err = list.Select("sharded,sharded")
	assert.EqualError(t, err, `implementation "sharded" selected twice`)
	_, err = list.Select("sharded,ring")
	assert.ErrorContains(t, err, `unknown implementation "ring"`)
}

func TestMust(t *testing.T) {
	if got := registry.Must(42, nil); got != 42 {
		t.Errorf("Must(42, nil) = %d", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Must with an error did not panic")
		}
	}()
	registry.Must(0, errors.New("bad default"))
}

package named

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestLookup(t *testing.T) {
	all := []string{"a", "b"}
	id := func(s string) string { return s }
	assert.Equal(t, all, Names(all, id))
	got, err := Lookup("letter", all, id, "b")
	require.NoError(t, err)
	assert.Equal(t, "b", got)
	_, err = Lookup("letter", all, id, "c")
	assert.EqualError(t, err, `unknown letter "c" (known: a, b)`)
}

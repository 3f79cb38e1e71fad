package shard_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/internal/shard"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRoundUp(t *testing.T) {
	for in, want := range map[int]int{-3: 1, 0: 1, 1: 1, 2: 2, 3: 4, 8: 8, 9: 16} {
		assert.Equal(t, want, shard.RoundUp(in), "RoundUp(%d)", in)
	}
}

func TestValidate(t *testing.T) {
	n, err := shard.Validate(0)
	require.NoError(t, err)
	assert.Equal(t, shard.RoundUp(4*runtime.GOMAXPROCS(0)), n)

	n, err = shard.Validate(6)
	require.NoError(t, err)
	assert.Equal(t, 8, n)

	_, err = shard.Validate(-1)
	assert.EqualError(t, err, "shard count -1 out of range [1, 65536] (0 selects the default)")
}

func TestStringsAgreesOnBytesAndSpreads(t *testing.T) {
	p := shard.NewStrings(16)
	counts := make([]int, 16)
	for i := range 16_000 {
		k := fmt.Sprintf("ns-%d/pod-%d", i%100, i)
		s := p.Of(k)
		require.Equal(t, s, p.OfBytes([]byte(k)), "a key's bytes route like its string")
		counts[s]++
	}
	for s, c := range counts {
		assert.InDelta(t, 1000, c, 300, "shard %d got %d keys", s, c)
	}
	assert.Equal(t, 0, shard.NewStrings(1).Of("anything"), "one shard takes every key")
	assert.Panics(t, func() { shard.NewStrings(3) })
}

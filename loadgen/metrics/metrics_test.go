package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestLatencyQuantilesAndMerge(t *testing.T) {
	a, b := NewLatency(), NewLatency()
	for i := int64(1); i <= 1000; i++ {
		a.Record(i * 1000)
	}
	b.Record(5_000_000)
	a.Merge(b)
	q := a.Quantiles()
	assert.EqualValues(t, 1001, q.Count)
	assert.InEpsilon(t, 500_000, q.P50, 0.01)
	assert.InEpsilon(t, 990_000, q.P99, 0.01)
	assert.InEpsilon(t, 5_000_000, q.Max, 0.01)
	a.Record(-5) // clamped, not lost
	assert.EqualValues(t, 1002, a.Quantiles().Count)
}

func TestSamplerKeepsPeaks(t *testing.T) {
	// The gauge falls after its first reading; the sampler reads it at
	// least twice (at start and at Stop), so only a kept peak gives 7.
	calls := 0 // the sampler's goroutine is the only caller
	gauge := func() int64 {
		if calls++; calls == 1 {
			return 7
		}
		return 2
	}
	ticks := 0
	s := StartSampler(func() { ticks++ }, gauge)
	heap, peaks := s.Stop()
	assert.Positive(t, heap)
	assert.Equal(t, []int64{7}, peaks)
	assert.Positive(t, ticks)
}

func TestUsageAndRSS(t *testing.T) {
	before := ReadSnapshot()
	sink := make([][]byte, 0, 10_000)
	for range 10_000 {
		sink = append(sink, make([]byte, 1024))
	}
	u := ReadSnapshot().Since(before)
	// The runtime flushes per-P allocation counts lazily: most, not all,
	// of the allocations are visible yet.
	assert.GreaterOrEqual(t, u.Allocs, uint64(5_000))
	assert.GreaterOrEqual(t, u.AllocBytes, uint64(5_000*1024))
	assert.Len(t, sink, 10_000)
	if rss, ok := PeakRSS(); ok {
		assert.Positive(t, rss)
	}
	assert.Positive(t, LiveHeap())
}

func TestProfilesWriteFiles(t *testing.T) {
	dir := t.TempDir()
	p := Profiles{CPU: filepath.Join(dir, "cpu.pprof"), Mem: filepath.Join(dir, "mem.pprof"),
		Mutex: filepath.Join(dir, "mutex.pprof"), Block: filepath.Join(dir, "block.pprof")}.WithSuffix("informer.clientgo")
	assert.Equal(t, filepath.Join(dir, "cpu.informer.clientgo.pprof"), p.CPU)
	stop, err := p.Start()
	require.NoError(t, err)
	require.NoError(t, stop())
	for _, f := range []string{p.CPU, p.Mem, p.Mutex, p.Block} {
		st, err := os.Stat(f)
		require.NoError(t, err)
		assert.Positive(t, st.Size(), f)
	}
}

package profsum_test

import (
	"bytes"
	"regexp"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/internal/lab/profsum"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// build makes a profile with the given sample types whose samples are
// stacks written leaf first.
func build(types []string, units []string, samples map[string][]int64) *profile.Profile {
	p := &profile.Profile{}
	for i, t := range types {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: t, Unit: units[i]})
	}
	funcs := make(map[string]*profile.Location)
	loc := func(name string) *profile.Location {
		if l := funcs[name]; l != nil {
			return l
		}
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name}
		p.Function = append(p.Function, fn)
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
		p.Location = append(p.Location, l)
		funcs[name] = l
		return l
	}
	// Deterministic sample order: sorted stacks.
	var stacks []string
	for s := range samples {
		stacks = append(stacks, s)
	}
	slices.Sort(stacks)
	for _, s := range stacks {
		sample := &profile.Sample{Value: samples[s]}
		for _, f := range strings.Split(s, " <- ") {
			sample.Location = append(sample.Location, loc(f))
		}
		p.Sample = append(p.Sample, sample)
	}
	return p
}

func TestCPUFlatAndCumulative(t *testing.T) {
	p := build([]string{"samples", "cpu"}, []string{"count", "nanoseconds"}, map[string][]int64{
		"main.c <- main.b <- main.a": {3, 30e6},
		"main.b <- main.a":           {1, 10e6},
	})
	s, err := profsum.Summarize(p, 10)
	require.NoError(t, err)

	assert.Equal(t, profsum.CPU, s.Kind)
	assert.Equal(t, int64(40e6), s.Total)
	require.Len(t, s.Flat, 2)
	assert.Equal(t, "main.c", s.Flat[0].Func)
	assert.InDelta(t, 0.75, s.Flat[0].FlatFrac, 1e-9)
	require.Len(t, s.Cum, 3)
	assert.Equal(t, []string{"main.a", "main.b", "main.c"}, []string{s.Cum[0].Func, s.Cum[1].Func, s.Cum[2].Func})
	assert.Empty(t, s.Sites)

	var out bytes.Buffer
	require.NoError(t, profsum.Write(&out, "cpu.pprof", s))
	assert.Contains(t, out.String(), "== cpu.pprof: cpu profile, cpu in nanoseconds: total 40.00ms")
	assert.Regexp(t, `top by flat \(own cost\):\n\s+cpu\s+share\s+function\n\s+30.00ms\s+75\.0%\s+main\.c\n\s+10.00ms\s+25\.0%\s+main\.b\n`, out.String())
}

func TestHeapRanksAllocatedBytes(t *testing.T) {
	p := build([]string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}, []string{"count", "bytes", "count", "bytes"},
		map[string][]int64{
			"runtime.mallocgc <- main.grow": {10, 4096, 0, 0},
			"runtime.mallocgc <- main.keep": {1, 1024, 1, 1024},
		})
	s, err := profsum.Summarize(p, 1)
	require.NoError(t, err)

	assert.Equal(t, profsum.Heap, s.Kind)
	assert.Equal(t, "alloc_space", s.Value)
	require.Len(t, s.Cum, 1, "top n is honoured")
	assert.Equal(t, "runtime.mallocgc", s.Cum[0].Func)
	var out bytes.Buffer
	require.NoError(t, profsum.Write(&out, "mem.pprof", s))
	assert.Contains(t, out.String(), "total 5.000KiB over 11 objects")
}

func TestContentionNamesTheCallSiteAboveTheLock(t *testing.T) {
	const get = "k8s.io/client-go/util/workqueue.(*Typed[go.shape.string]).Get"
	const add = "k8s.io/client-go/util/workqueue.(*Typed[go.shape.string]).Add"
	p := build([]string{"contentions", "delay"}, []string{"count", "nanoseconds"}, map[string][]int64{
		"internal/sync.(*Mutex).lockSlow <- sync.(*Mutex).Lock <- " + get + " <- main.worker": {5, 9000},
		"sync.(*Cond).Wait <- " + get + " <- main.worker":                                     {2, 20000},
		"sync.(*Mutex).Unlock <- " + add + " <- main.producer":                                {7, 1000},
		"main.spin": {1, 10},
		// The generic wrapper and a defer wrapper fold into one frame each.
		"sync.(*Mutex).Unlock <- " + add + ".deferwrap1 <- " + add + " <- k8s.io/client-go/util/workqueue.(*Typed[string]).Add <- main.producer": {1, 0},
		// The benchmark harness waiting for the benchmark is not contention.
		"runtime.chanrecv1 <- testing.(*B).run1": {1, 5000},
	})
	s, err := profsum.Summarize(p, 10)
	require.NoError(t, err)

	// Type arguments are folded so the generic method reads as one function.
	const getN = "k8s.io/client-go/util/workqueue.(*Typed[...]).Get"
	const addN = "k8s.io/client-go/util/workqueue.(*Typed[...]).Add"
	assert.Equal(t, profsum.Contention, s.Kind)
	assert.Equal(t, []profsum.Site{
		{Wait: "sync.(*Cond).Wait", Caller: getN, Via: "main.worker", Delay: 20000, Count: 2, Frac: 20000.0 / 35010},
		{Wait: "sync.(*Mutex).Lock", Caller: getN, Via: "main.worker", Delay: 9000, Count: 5, Frac: 9000.0 / 35010},
		{Wait: "sync.(*Mutex).Unlock", Caller: addN, Via: "main.producer", Delay: 1000, Count: 8, Frac: 1000.0 / 35010},
		{Wait: "", Caller: "main.spin", Delay: 10, Count: 1, Frac: 10.0 / 35010},
	}, s.Sites)

	var out bytes.Buffer
	require.NoError(t, profsum.Write(&out, "mutex.pprof", s))
	assert.Regexp(t, `20\.00µs\s+57\.1%\s+2\s+sync\.\(\*Cond\)\.Wait\s+`+regexp.QuoteMeta(getN)+`\s+main\.worker`, out.String())
}

func TestEmptyProfileExplainsItself(t *testing.T) {
	s, err := profsum.Summarize(build([]string{"contentions", "delay"}, []string{"count", "nanoseconds"}, nil), 5)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, profsum.Write(&out, "block.pprof", s))
	assert.Contains(t, out.String(), "no samples")

	_, err = profsum.Summarize(&profile.Profile{}, 5)
	assert.Error(t, err)
}

// counter is contended on purpose: its method is the call site the real
// profiles must name.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) inc() {
	c.mu.Lock()
	c.n++
	for range 50 {
		c.n ^= 1 // hold the lock a little so others queue behind it
	}
	c.mu.Unlock()
}

// TestRealMutexAndBlockProfiles runs a contended mutex under the runtime's
// profilers and checks the summary points at counter.inc. Contention is
// likely but not certain in one round, so it retries a bounded number of
// rounds rather than asserting anything about time.
func TestRealMutexAndBlockProfiles(t *testing.T) {
	prevMutex := runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)
	t.Cleanup(func() {
		runtime.SetMutexProfileFraction(prevMutex)
		runtime.SetBlockProfileRate(0)
	})
	const inc = "github.com/queuelab/queuelab/internal/lab/profsum_test.(*counter).inc"
	found := map[string]bool{}
	for round := 0; round < 50 && !(found["mutex"] && found["block"]); round++ {
		var c counter
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 2000 {
					c.inc()
				}
			})
		}
		wg.Wait()
		for _, name := range []string{"mutex", "block"} {
			var buf bytes.Buffer
			require.NoError(t, pprof.Lookup(name).WriteTo(&buf, 0))
			p, err := profile.Parse(&buf)
			require.NoError(t, err)
			s, err := profsum.Summarize(p, 20)
			require.NoError(t, err)
			assert.Equal(t, profsum.Contention, s.Kind)
			for _, site := range s.Sites {
				if site.Caller == inc && strings.HasPrefix(site.Wait, "sync.(*Mutex).") {
					found[name] = true
				}
			}
		}
	}
	assert.True(t, found["mutex"], "mutex profile never named %s", inc)
	assert.True(t, found["block"], "block profile never named %s", inc)
}

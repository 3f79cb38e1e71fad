package benchcmp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
	"github.com/queuelab/queuelab/internal/lab/benchcmp/benchcmptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const preamble = "goos: linux\ngoarch: amd64\npkg: example.com/lab/bench\n"

// run is a benchmark file under construction.
type run struct{ *benchcmptest.File }

func newRun(header string) *run { return &run{benchcmptest.New(header + preamble)} }

// add appends count samples of bench/impl=<impl> with ns/op near ns and
// events/s near eps (0 leaves the metric out).
func (r *run) add(bench, impl string, count int, ns, eps float64) *run {
	m := []benchcmptest.Metric{{Value: ns, Unit: "ns/op"}, {Value: 64, Unit: "B/op"}, {Value: 2, Unit: "allocs/op"}}
	if eps > 0 {
		m = append(m, benchcmptest.Metric{Value: eps, Unit: "events/s"})
	}
	r.Add(bench+"/impl="+impl+"-2", count, m...)
	return r
}

func (r *run) write(t *testing.T, name string) string { return r.Write(t, t.TempDir(), name) }

const wq = "BenchmarkWorkQueue/op=add/keys=1024"

// baseRun is a run where sharded is 40% faster than clientgo and ring is
// indistinguishable from it.
func baseRun(header string, shardedNs float64) *run {
	return newRun(header).
		add(wq, "clientgo", 6, 100, 1e6).
		add(wq, "sharded", 6, shardedNs, 1.6e6).
		add(wq, "ring", 6, 100.5, 1e6)
}

func gate(t *testing.T, old, new string, opts benchcmp.GateOptions) *benchcmp.GateResult {
	t.Helper()
	d, err := benchcmp.Load("old="+old, "new="+new)
	require.NoError(t, err)
	g, err := d.Group(benchcmp.ByFile, benchcmp.Options{})
	require.NoError(t, err)
	res, err := g.Gate("old", "new", opts)
	require.NoError(t, err)
	return res
}

func TestGateFailsAndNamesTheImplementationThatGotSlower(t *testing.T) {
	old := baseRun("", 60).write(t, "old.txt")
	slower := baseRun("", 90).write(t, "new.txt") // sharded ns/op × 1.5

	res := gate(t, old, slower, benchcmp.GateOptions{Tolerance: 0.05})

	require.True(t, res.Failed())
	require.Len(t, res.Regressions, 1)
	r := res.Regressions[0]
	assert.Equal(t, "sharded", r.Impl)
	assert.Equal(t, "sec/op", r.Unit)
	assert.InDelta(t, 0.5, r.Worse, 0.01)
	assert.Contains(t, r.String(), "WorkQueue/op=add/keys=1024/impl=sharded-2 impl=sharded sec/op")
	assert.Contains(t, r.String(), "+50.0% worse")
}

func TestGateFailsOnLostThroughput(t *testing.T) {
	old := newRun("").add(wq, "sharded", 6, 60, 2e6).write(t, "old.txt")
	slower := newRun("").add(wq, "sharded", 6, 60, 1e6).write(t, "new.txt")

	res := gate(t, old, slower, benchcmp.GateOptions{Tolerance: 0.05})

	require.Len(t, res.Regressions, 1)
	assert.Equal(t, "events/s", res.Regressions[0].Unit)
	assert.Equal(t, benchcmp.HigherIsBetter, res.Regressions[0].Direction)
}

func TestGatePassesOnTheSameSamples(t *testing.T) {
	path := baseRun("", 60).write(t, "run.txt")

	res := gate(t, path, path, benchcmp.GateOptions{Tolerance: 0.05})

	assert.False(t, res.Failed())
	assert.Equal(t, 12, res.Checked, "3 impls × (sec/op, events/s, B/op, allocs/op)")
	assert.Empty(t, res.Missing)
}

func TestGatePassesOnInsignificantNoise(t *testing.T) {
	old := newRun("").add(wq, "sharded", 6, 60, 0).write(t, "old.txt")
	// The same spread, reordered and shifted by 1%: the U test cannot tell
	// the two apart.
	r := newRun("")
	for _, j := range []float64{1.02, 0.98, 1.01, 0.99, 1.0, 1.03} {
		r.Raw(fmt.Sprintf("%s/impl=sharded-2\t1000\t%.2f ns/op\t64 B/op\t2 allocs/op", wq, 60*j))
	}
	res := gate(t, old, r.write(t, "new.txt"), benchcmp.GateOptions{Tolerance: 0.05})

	assert.False(t, res.Failed())
	assert.Positive(t, res.Insignificant)
}

func TestGateToleratesSignificantChangesWithinTolerance(t *testing.T) {
	old := newRun("").add(wq, "sharded", 6, 60, 0).write(t, "old.txt")
	slightly := newRun("").add(wq, "sharded", 6, 61.8, 0).write(t, "new.txt") // 3% slower

	assert.False(t, gate(t, old, slightly, benchcmp.GateOptions{Tolerance: 0.05}).Failed())
	assert.True(t, gate(t, old, slightly, benchcmp.GateOptions{Tolerance: 0.01}).Failed())
}

func TestGateImplFilter(t *testing.T) {
	old := baseRun("", 60).write(t, "old.txt")
	slower := baseRun("", 90).write(t, "new.txt")

	assert.False(t, gate(t, old, slower, benchcmp.GateOptions{Tolerance: 0.05, Impls: []string{"ring", "clientgo"}}).Failed())
	assert.True(t, gate(t, old, slower, benchcmp.GateOptions{Tolerance: 0.05, Impls: []string{"sharded"}}).Failed())

	d, err := benchcmp.Load("old="+old, "new="+slower)
	require.NoError(t, err)
	g, err := d.Group(benchcmp.ByFile, benchcmp.Options{})
	require.NoError(t, err)
	_, err = g.Gate("old", "new", benchcmp.GateOptions{Impls: []string{"shardd"}})
	assert.ErrorContains(t, err, `implementation "shardd" is in neither file (have: clientgo, ring, sharded)`)
}

func TestGateSkipsUnitsOfUnknownDirectionAndHonoursUnitLines(t *testing.T) {
	lines := func(v float64) *run {
		r := newRun("Unit gadgets better=higher\n")
		r.Add(wq+"/impl=sharded", 6, benchcmptest.Metric{Value: v, Unit: "widgets"}, benchcmptest.Metric{Value: v, Unit: "gadgets"})
		return r
	}
	res := gate(t, lines(100).write(t, "old.txt"), lines(50).write(t, "new.txt"), benchcmp.GateOptions{Tolerance: 0.05})

	require.Len(t, res.Regressions, 1)
	assert.Equal(t, "gadgets", res.Regressions[0].Unit)
	assert.Equal(t, 1, res.Unknown, "widgets has no direction")
}

func TestGateReportsBenchmarksMissingFromTheNewRun(t *testing.T) {
	old := baseRun("", 60).write(t, "old.txt")
	fewer := newRun("").add(wq, "clientgo", 6, 100, 1e6).write(t, "new.txt")

	res := gate(t, old, fewer, benchcmp.GateOptions{Tolerance: 0.05})

	assert.False(t, res.Failed())
	assert.Contains(t, res.Missing, strings.TrimPrefix(wq, "Benchmark")+"/impl=sharded-2 sec/op")
}

func TestGateRejectsNegativeTolerance(t *testing.T) {
	path := baseRun("", 60).write(t, "run.txt")
	d, err := benchcmp.Load("old="+path, "new="+path)
	require.NoError(t, err)
	g, err := d.Group(benchcmp.ByFile, benchcmp.Options{})
	require.NoError(t, err)
	_, err = g.Gate("old", "new", benchcmp.GateOptions{Tolerance: -0.1})
	assert.ErrorContains(t, err, "negative")
}

func TestWriteRatiosComparesEveryImplementationToTheBaseline(t *testing.T) {
	path := baseRun("", 60).
		add("BenchmarkFIFO/op=add", "ring", 6, 30, 0).
		add("BenchmarkFIFO/op=add", "sharded", 1, 35, 0).
		write(t, "run.txt")
	text := ratiosToClientgo(t, path)

	assert.Contains(t, text, "WorkQueue · sec/op (lower is better)\nbenchmark           clientgo    sharded  ring\n")
	assert.Regexp(t, `op=add/keys=1024-2\s+100 ns ±\d+%\s+0\.60×\s+~1\.00×`, text)
	assert.Contains(t, text, "~ = no significant difference")
	assert.Contains(t, text, "WorkQueue · events/s (higher is better)")
	// The FIFO family has no clientgo rows: absolute values, single samples
	// without an interval.
	assert.Regexp(t, `FIFO · sec/op \(lower is better\)\nbenchmark\s+sharded\s+ring\nop=add-2\s+3\d\.\d+ ns \(n=1\)\s+30\.\d+ ns ±\d+%`, text)
	assert.NotContains(t, text, "e+0")
}

func TestWriteChangesShowsDeltasAgainstTheFirstFile(t *testing.T) {
	old := baseRun("", 60).write(t, "old.txt")
	slower := baseRun("", 90).write(t, "new.txt")
	d, err := benchcmp.Load("old="+old, "new="+slower)
	require.NoError(t, err)
	g, err := d.Group(benchcmp.ByFile, benchcmp.Options{})
	require.NoError(t, err)

	var out strings.Builder
	require.NoError(t, g.WriteChanges(&out))

	assert.Regexp(t, `op=add/keys=1024/impl=sharded-2\s+60\.\d+ ns ±\d+%\s+90\.\d+ ns ±\d+%\s+\+50\.00% \(p=0\.002 n=6\)`, out.String())
	assert.Regexp(t, `op=add/keys=1024/impl=clientgo-2\s+100 ns ±\d+%\s+100 ns ±\d+%\s+~ \(p=1\.000 n=6\)`, out.String())
}

func TestLoadReadsHeadersAndFilters(t *testing.T) {
	path := baseRun("commit: 0123abcd\ngo: go1.26.8\nclient-go: v0.37.2\nnote: quiet machine\n", 60).write(t, "run.txt")
	d, err := benchcmp.Load(path)
	require.NoError(t, err)
	assert.Equal(t, "0123abcd", d.Headers[path]["commit"])
	assert.Equal(t, "v0.37.2", d.Headers[path]["client-go"])
	assert.Equal(t, "quiet machine", d.Headers[path]["note"])
	assert.Equal(t, 18, d.Len())

	g, err := d.Group(benchcmp.ByImpl, benchcmp.Options{Filter: "/impl:(clientgo OR ring)"})
	require.NoError(t, err)
	assert.Equal(t, []string{"clientgo", "ring"}, g.Columns)
	assert.Equal(t, []string{"sec/op", "B/op", "allocs/op", "events/s"}, g.Units)
	require.Len(t, g.Rows, 1)
	row := g.Rows[0]
	assert.Equal(t, "WorkQueue", row.Family)
	assert.Equal(t, "op=add/keys=1024-2", row.Sub())
	assert.Equal(t, []benchcmp.Param{{"op", "add"}, {"keys", "1024"}, {"gomaxprocs", "2"}}, row.Params)

	_, err = d.Group(benchcmp.ByImpl, benchcmp.Options{Filter: "/impl:("})
	assert.ErrorContains(t, err, "filter")
	_, err = benchcmp.Load(filepath.Join(t.TempDir(), "missing.txt"))
	assert.Error(t, err)
	_, err = benchcmp.Load()
	assert.Error(t, err)
}

func TestSameBenchmarkNameInTwoPackagesStaysApart(t *testing.T) {
	text := "pkg: example.com/lab/internal/deque\nBenchmarkPushPop\t10\t5 ns/op\n" +
		"pkg: example.com/lab/internal/mpmc\nBenchmarkPushPop\t10\t9 ns/op\n"
	path := filepath.Join(t.TempDir(), "run.txt")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	d, err := benchcmp.Load(path)
	require.NoError(t, err)
	g, err := d.Group(benchcmp.ByImpl, benchcmp.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"deque.PushPop", "mpmc.PushPop"}, g.Families())
	assert.Equal(t, "(all)", g.Rows[0].Sub())
	assert.Equal(t, "deque.PushPop", g.Rows[0].Label())
}

func TestHumanUnitsAndWords(t *testing.T) {
	for _, c := range []struct {
		v          float64
		unit, want string
	}{
		{1.5e-9, "sec/op", "1.5 ns"}, {0.0123, "sec/op", "12.3 ms"}, {10e9, "p99_ns", "10 s"}, {2.5e6, "p99_ns", "2.5 ms"},
		{55900, "B/op", "54.6 KiB"}, {64 << 20, "peak-heap-B", "64 MiB"}, {1.5 * (1 << 30), "B/obj", "1.5 GiB"},
		{482000, "allocs/op", "482k"}, {0.125, "allocs/op", "0.125"}, {300233, "writes/s", "300k/s"},
		{46.04, "writes/s", "46/s"}, {0, "B/op", "0 B"}, {999.9, "reads/s", "1k/s"},
	} {
		assert.Equal(t, c.want, benchcmp.Human(c.v, c.unit), "%g %s", c.v, c.unit)
	}
	assert.Equal(t, "2.86× faster", benchcmp.Times(0.35, "sec/op"))
	assert.Equal(t, "1.20× slower", benchcmp.Times(1.2, "sec/op"))
	assert.Equal(t, "3.10× less memory", benchcmp.Times(1/3.1, "B/op"))
	assert.Equal(t, "34.0× more writes/s", benchcmp.Times(34, "writes/s"))
	assert.Equal(t, "8.63× fewer allocs", benchcmp.Times(1/8.63, "allocs/op"))
	assert.Equal(t, "no difference", benchcmp.Times(1, "sec/op"))
}

func TestBetter(t *testing.T) {
	for unit, want := range map[string]benchcmp.Direction{
		"sec/op":      benchcmp.LowerIsBetter,
		"B/op":        benchcmp.LowerIsBetter,
		"allocs/op":   benchcmp.LowerIsBetter,
		"B/obj":       benchcmp.LowerIsBetter,
		"p99_sec":     benchcmp.LowerIsBetter,
		"p99_ns":      benchcmp.LowerIsBetter,
		"peak-heap-B": benchcmp.LowerIsBetter,
		"events/s":    benchcmp.HigherIsBetter,
		"B/s":         benchcmp.HigherIsBetter,
		"widgets":     benchcmp.Unknown,
		"shards":      benchcmp.Unknown,
	} {
		assert.Equal(t, want, benchcmp.Better(nil, unit), unit)
	}
}

func TestComposedImplementationsCompareToTheAllBaselineCombo(t *testing.T) {
	path := newRun("").
		add("BenchmarkLoad/scenario=steady", "clientgo+clientgo+clientgo", 6, 100, 0).
		add("BenchmarkLoad/scenario=steady", "sharded+clientgo+ring", 6, 50, 0).
		write(t, "run.txt")
	text := ratiosToClientgo(t, path)
	assert.Regexp(t, `Load · sec/op \(lower is better\)\nbenchmark\s+clientgo\+clientgo\+clientgo\s+sharded\+clientgo\+ring\nscenario=steady-2\s+100 ns ±\d+%\s+0\.50×`, text)

	assert.Equal(t, "", benchcmp.BaselineOf([]string{"a+b", "clientgo+b"}, "clientgo"))
	assert.Equal(t, "clientgo", benchcmp.BaselineOf([]string{"a", "clientgo"}, "clientgo"))

	assert.Equal(t, "clientgo", benchcmp.PeerOf("ring", "clientgo"))
	assert.Equal(t, "clientgo+clientgo", benchcmp.PeerOf("lockfree+ring", "clientgo"))
	assert.Equal(t, "clientgo+clientgo+clientgo", benchcmp.PeerOf("a+b+c", "clientgo+clientgo"))

	// A family holding plain and composed rows (load runs: a workqueue
	// pipeline beside an informer one) compares each to its own peer.
	mixed := newRun("").
		add("BenchmarkLoad/pipeline=workqueue", "clientgo", 6, 100, 0).
		add("BenchmarkLoad/pipeline=workqueue", "ring", 6, 25, 0).
		add("BenchmarkLoad/pipeline=informer", "clientgo+clientgo+clientgo", 6, 100, 0).
		add("BenchmarkLoad/pipeline=informer", "mutex+mutex+mutex", 6, 40, 0).
		write(t, "mixed.txt")
	text = ratiosToClientgo(t, mixed)
	// Each combination heads its own table.
	assert.Regexp(t, `benchmark\s+clientgo\s+ring\npipeline=workqueue-2\s+100 ns ±\d+%\s+0\.25×\n`, text)
	assert.Regexp(t, `benchmark\s+clientgo\+clientgo\+clientgo\s+mutex\+mutex\+mutex\npipeline=informer-2\s+100 ns ±\d+%\s+0\.40×\n`, text)

	// A one-word stack beside a composed stock one (the informer built
	// with zero Options, impl=default, beside clientgo+clientgo) takes the
	// run's baseline column rather than heading a table of its own.
	lone := newRun("").
		add("BenchmarkInformerContention/readers=10", "clientgo+clientgo", 6, 100, 0).
		add("BenchmarkInformerContention/readers=10", "default", 6, 1, 0).
		write(t, "lone.txt")
	text = ratiosToClientgo(t, lone)
	assert.Regexp(t, `benchmark\s+clientgo\+clientgo\s+default\nreaders=10-2\s+100 ns ±\d+%\s+0\.01×\n`, text)
	assert.Equal(t, "clientgo+clientgo", benchcmp.PeerAmong([]string{"clientgo+clientgo", "default"}, "default", "clientgo"))
	assert.Equal(t, "clientgo", benchcmp.PeerAmong([]string{"clientgo", "ring"}, "ring", "clientgo"))
}

// ratiosToClientgo is `queuelab compare FILE`'s text for the file at path.
func ratiosToClientgo(t *testing.T, path string) string {
	t.Helper()
	d, err := benchcmp.Load(path)
	require.NoError(t, err)
	g, err := d.Group(benchcmp.ByImpl, benchcmp.Options{})
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, g.WriteRatios(&out, "clientgo"))
	return out.String()
}

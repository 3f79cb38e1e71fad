package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/queuelab/queuelab/internal/lab/benchcmp/benchcmptest"
)

// writeBench writes a benchmark file with six samples per implementation;
// ns maps an implementation to its ns/op.
func writeBench(t *testing.T, name string, ns map[string]float64) string {
	t.Helper()
	f := benchcmptest.New("commit: 0123456789abcdef\ngo: go1.26.8\nclient-go: v0.37.2\ncpu: test cpu\npkg: github.com/queuelab/queuelab/bench\n")
	for _, impl := range []string{"clientgo", "sharded", "ring"} {
		f.Add("BenchmarkWorkQueue/op=pipeline/producers=8/keys=1024/impl="+impl+"-2", 6,
			benchcmptest.Metric{Value: ns[impl], Unit: "ns/op"}, benchcmptest.Metric{Value: 1e9 / ns[impl], Unit: "items/s"},
			benchcmptest.Metric{Value: 48, Unit: "B/op"}, benchcmptest.Metric{Value: 1, Unit: "allocs/op"})
	}
	return f.Write(t, t.TempDir(), name)
}

var baseNs = map[string]float64{"clientgo": 200, "sharded": 120, "ring": 201}

func compare(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = dispatch(append([]string{"compare"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCompareGateFailsOnASlowerImplementation(t *testing.T) {
	old := writeBench(t, "old.txt", baseNs)
	slower := writeBench(t, "new.txt", map[string]float64{"clientgo": 200, "sharded": 180, "ring": 201})

	code, out, _ := compare("--gate", "--tolerance", "5%", old, slower)

	assert.Equal(t, 1, code)
	assert.Regexp(t, `REGRESSION WorkQueue/op=pipeline/producers=8/keys=1024/impl=sharded-2 impl=sharded sec/op: 120 ns -> 180 ns \(\+50\.0% worse, p=0\.002 n=6`, out)
	assert.Contains(t, out, "impl=sharded items/s")
	assert.NotContains(t, out, "impl=ring")
	assert.Contains(t, out, "gate: 2 regression(s) beyond 5%")
}

func TestCompareGatePassesOnTheSameRun(t *testing.T) {
	path := writeBench(t, "run.txt", baseNs)
	code, out, errOut := compare("--gate", "old="+path, "new="+path)
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "gate: 0 regression(s) beyond 5% in 12 comparisons of new against old")
}

func TestCompareGateImplFilter(t *testing.T) {
	old := writeBench(t, "old.txt", baseNs)
	slower := writeBench(t, "new.txt", map[string]float64{"clientgo": 200, "sharded": 180, "ring": 201})

	code, _, _ := compare("--gate", "--impl", "clientgo,ring", old, slower)
	assert.Equal(t, 0, code)

	code, _, errOut := compare("--gate", "--impl", "shardd", old, slower)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `implementation "shardd" is in neither file`)
}

func TestCompareOneFileGivesRatiosToTheBaseline(t *testing.T) {
	path := writeBench(t, "run.txt", baseNs)

	code, out, _ := compare(path)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "WorkQueue · sec/op (lower is better)\nbenchmark")
	assert.Regexp(t, `op=pipeline/producers=8/keys=1024-2\s+201 ns ±2%\s+0\.60×\s+~1\.00×`, out)

	code, out, _ = compare("--baseline", "ring", path)
	assert.Equal(t, 0, code)
	assert.Regexp(t, `benchmark\s+ring\s+clientgo`, out, "the baseline's column first")
}

func TestCompareTwoFilesGivesChanges(t *testing.T) {
	old := writeBench(t, "old.txt", baseNs)
	slower := writeBench(t, "new.txt", map[string]float64{"clientgo": 200, "sharded": 180, "ring": 201})

	code, out, _ := compare("old="+old, "new="+slower)
	assert.Equal(t, 0, code)
	assert.Regexp(t, `impl=sharded-2\s+120 ns ±2%\s+180 ns ±2%\s+\+50\.00% \(p=0\.002 n=6\)`, out)
}

func TestCompareRejectsBadInput(t *testing.T) {
	path := writeBench(t, "run.txt", baseNs)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no files":        {nil, "no benchmark files given"},
		"gate one file":   {[]string{"--gate", path}, "--gate needs exactly two files"},
		"bad tolerance":   {[]string{"--gate", "--tolerance", "lots", path, path}, `--tolerance "lots"`},
		"bad alpha":       {[]string{"--alpha", "2", path}, "--alpha and --confidence"},
		"missing file":    {[]string{filepath.Join(t.TempDir(), "nope.txt")}, "no such file"},
		"bad filter":      {[]string{"--filter", "/impl:(", path}, "filter"},
		"same file twice": {[]string{path, path}, "given twice"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := compare(tc.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tc.want)
		})
	}
}

func TestParseTolerance(t *testing.T) {
	for in, want := range map[string]float64{"5%": 0.05, "0.05": 0.05, "0": 0, " 12.5% ": 0.125} {
		got, err := parseTolerance(in)
		require.NoError(t, err, in)
		assert.InDelta(t, want, got, 1e-12, in)
	}
	_, err := parseTolerance("-1%")
	assert.Error(t, err)
}

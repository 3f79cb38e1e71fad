package report_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/queuelab/queuelab/internal/lab/benchcmp/benchcmptest"
	"github.com/queuelab/queuelab/internal/lab/report"
)

// scalingFile writes a bench-scaling run at commit: the WorkQueue pipeline
// at GOMAXPROCS 1 (no -N suffix, as go test names it), 2, 4 and 16, where
// client-go stays flat and sharded scales.
func scalingFile(t *testing.T, dir, file, date, commit string) string {
	t.Helper()
	f := benchcmptest.New("commit: " + commit + "\ndate: " + date + "\ngo: go1.26.8\nclient-go: v0.37.2\n" +
		"cpu: Test CPU @ 2GHz (16 CPUs)\nnote: scaling\nbench-command: bench/scaling.sh run\nload-command: \ngoos: linux\ngoarch: amd64\n" +
		"pkg: github.com/queuelab/queuelab/bench\n")
	for _, procs := range []int{1, 2, 4, 16} {
		suffix := ""
		if procs > 1 {
			suffix = "-" + strconv.Itoa(procs)
		}
		for impl, ns := range map[string]float64{"clientgo": 1000, "sharded": 1000 / float64(procs)} {
			f.Add("BenchmarkWorkQueue/op=pipeline/producers=8/consumers=8/keys=1024/impl="+impl+suffix, 6,
				benchcmptest.Metric{Value: ns, Unit: "ns/op"}, benchcmptest.Metric{Value: 1e9 / ns, Unit: "items/s"})
		}
	}
	return f.Write(t, dir, file)
}

// TestScalingRunsAreChartedByCores: a run at several GOMAXPROCS, though
// newer, supplies no family's tables; it gets a section of its own with a
// chart of throughput against GOMAXPROCS, relative to the baseline at one P.
func TestScalingRunsAreChartedByCores(t *testing.T) {
	l := newLab(t)
	rawFile(t, l.opts.RawDir, "20260101-0123456-host.txt", "2026-01-01T00:00:00Z", labRun())
	scalingFile(t, l.opts.RawDir, "20260102-89abcde-host-scaling.txt", "2026-01-02T00:00:00Z", "89abcde0123456789abcdef0123456789abcdef0")

	res, err := report.Generate(l.opts)
	require.NoError(t, err)
	assert.Len(t, res.Raw, 2)
	md := l.read(t, "results/README.md")
	assert.Contains(t, md, "| [`20260101-0123456-host.txt`](raw/20260101-0123456-host.txt) | [Load](#family-load), [Map](#family-map), [WorkQueue](#family-workqueue) |",
		"the tables still come from the full run")
	assert.Contains(t, md, "| [`20260102-89abcde-host-scaling.txt`](raw/20260102-89abcde-host-scaling.txt) | [WorkQueue by GOMAXPROCS](#scaling-workqueue) |")
	assert.Contains(t, md, "| `op=pipeline/producers=8/consumers=8/keys=1024` | 4.01 µs", "the full run's numbers")
	sec := md[strings.Index(md, "## Scaling with cores"):]
	assert.Contains(t, sec, "<a id=\"scaling-workqueue\"></a>\n### WorkQueue\n\n`op` ∈ {pipeline}, `producers` ∈ {8}, `consumers` ∈ {8}, `keys` ∈ {1024} at GOMAXPROCS 1, 2, 4, 16.")
	assert.Contains(t, sec, "(commit `89abcde01234`, Test CPU @ 2GHz (16 CPUs)), 6 samples a point.")
	assert.Contains(t, sec, "(charts/workqueue-cores.svg)")
	assert.Contains(t, l.read(t, "README.md"), "| [WorkQueue](results/README.md#family-workqueue) | `sharded` | 2.00× faster |",
		"the headline is the full run's")

	svg := l.read(t, "results/charts/workqueue-cores.svg")
	for _, want := range []string{"GOMAXPROCS", "WorkQueue: ops/s ÷ clientgo&#39;s at 1 P by GOMAXPROCS (higher is better)", ">relative ops/s<", ">clientgo<", ">sharded<", ">16<"} {
		assert.Contains(t, svg, want)
	}
}

// git runs git in dir with a fixed identity and clock, and returns its
// output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=lab", "-c", "user.email=lab@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// commitFiles writes files (path → content) under dir and commits them.
func commitFiles(t *testing.T, dir, msg string, files map[string]string) string {
	t.Helper()
	for p, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", msg)
	return git(t, dir, "rev-parse", "HEAD")
}

// TestFamiliesMeasuredBeforeTheirCodeChangedAreStale: a family is stale when
// a commit after its raw file's touches its benchmark's file or a package
// that file imports, directly or through another; a change to tests only,
// or to another family's code, leaves it fresh. A family no benchmark file
// defines (a load run) depends on all of them.
func TestFamiliesMeasuredBeforeTheirCodeChangedAreStale(t *testing.T) {
	l := newLab(t)
	repo := l.dir
	git(t, repo, "init", "-q")
	measured := commitFiles(t, repo, "the lab", map[string]string{
		"go.mod":                  "module example.com/lab\n\ngo 1.26\n",
		"internal/core/core.go":   "package core\n",
		"queues/wq/wq.go":         "package wq\n\nimport _ \"example.com/lab/internal/core\"\n",
		"stores/st/st.go":         "package st\n",
		"stores/st/st_test.go":    "package st\n",
		"bench/workqueue_test.go": "package bench\n\nimport (\n\t\"testing\"\n\n\t_ \"example.com/lab/queues/wq\"\n)\n\nfunc BenchmarkWorkQueue(b *testing.B) {}\n",
		"bench/map_test.go":       "package bench\n\nimport (\n\t\"testing\"\n\n\t_ \"example.com/lab/stores/st\"\n)\n\nfunc BenchmarkMap(b *testing.B) {}\n",
	})
	l.opts.Repo, l.opts.BenchDir = repo, filepath.Join(repo, "bench")
	rawFile(t, l.opts.RawDir, "20260101-0123456-host.txt", "2026-01-01T00:00:00Z", labRun())
	raw := filepath.Join(l.opts.RawDir, "20260101-0123456-host.txt")
	data, err := os.ReadFile(raw)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(raw, []byte(strings.Replace(string(data), "0123456789abcdef0123456789abcdef01234567", measured, 1)), 0o644))
	scalingFile(t, l.opts.RawDir, "20260102-89abcde-host-scaling.txt", "2026-01-02T00:00:00Z", measured+"-dirty")

	_, err = report.Generate(l.opts)
	require.NoError(t, err)
	md := l.read(t, "results/README.md")
	assert.NotContains(t, md, "stale", "nothing changed after the runs")

	commitFiles(t, repo, "a test of the store", map[string]string{"stores/st/st_test.go": "package st\n\n// more\n"})
	changed := commitFiles(t, repo, "core, under the work queue", map[string]string{"internal/core/core.go": "package core\n\n// changed\n"})
	_, err = report.Generate(l.opts)
	require.NoError(t, err)
	md = l.read(t, "results/README.md")
	wq := md[strings.Index(md, "## WorkQueue"):]
	wq = wq[:strings.Index(wq[1:], "\n## ")]
	assert.Contains(t, wq, "**Stale:** 1 commit after `"+measured[:12]+"` touches the code it measures (`"+changed[:12]+"`): re-run it.")
	assert.Contains(t, md, "### WorkQueue (**stale**)", "the scaling run of the work queue, measured at the same commit")
	assert.Contains(t, md, "[WorkQueue by GOMAXPROCS (**stale**)](#scaling-workqueue)")
	mp := md[strings.Index(md, "## Map"):]
	assert.NotContains(t, mp[:strings.Index(mp[1:], "\n## ")], "Stale", "a test-only change is no change to what Map measures")
	assert.Contains(t, md, "[Load (**stale**)](#family-load)", "a load run measures every benchmark's code")
	top := l.read(t, "README.md")
	assert.Contains(t, top, "| [WorkQueue](results/README.md#family-workqueue) | `sharded` | 2.00× faster | no difference | no difference | "+
		"[`20260101-0123456-host.txt`](results/raw/20260101-0123456-host.txt) **stale** |")

	// A raw file whose commit this history lacks cannot be vouched for.
	require.NoError(t, os.WriteFile(raw, []byte(strings.Replace(string(data), "0123456789abcdef0123456789abcdef01234567", strings.Repeat("f", 40), 1)), 0o644))
	_, err = report.Generate(l.opts)
	require.NoError(t, err)
	md = l.read(t, "results/README.md")
	mp = md[strings.Index(md, "## Map"):]
	assert.Contains(t, mp, "**Stale:** its commit `ffffffffffff` is not in this branch's history, so these numbers may not describe the code.")
}

package report_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/queuelab/queuelab/internal/lab/report"
)

// TestRunsAgainstAnAPIServerNeverSupplyAFamily: a make e2e run (here with
// kube-apiserver restarted mid-run) newer than a lab run measures the API
// server and the injected outage too, so the lab run still supplies the
// family it shares; the e2e run is known by what its header says, however
// it says it. Named with --raw, it is reported.
func TestRunsAgainstAnAPIServerNeverSupplyAFamily(t *testing.T) {
	const e2ePkg = "pkg: github.com/queuelab/queuelab/loadgen/e2e\n"
	for name, provenance := range map[string]string{
		"load-command": "note: restart half way\nload-command: make E2E_COUNT=1 e2e E2E_RESTART=0.5 E2E_BENCH=x.txt\npkg: github.com/queuelab/queuelab/bench\n",
		"note":         "note: make e2e with E2E_RESTART=0.5: controllers against kube-apiserver\npkg: github.com/queuelab/queuelab/bench\n",
		"package":      "note: unit test\n" + e2ePkg,
		"all three":    "note: make e2e E2E_COUNT=3: 3 rounds\nload-command: make e2e E2E_COUNT=3\n" + e2ePkg,
	} {
		t.Run(name, func(t *testing.T) {
			l := newLab(t)
			rawFile(t, l.opts.RawDir, "20260101-0123456-host.txt", "2026-01-01T00:00:00Z", labRun())
			e2e := rawFileFrom(t, l.opts.RawDir, "20260102-89abcde-host-e2e-restart.txt", testCommit, "2026-01-02T00:00:00Z", provenance,
				[]series{wq(8, "clientgo", 4000, 3), wq(8, "ring", 1000, 1)})

			res, err := report.Generate(l.opts)
			require.NoError(t, err)
			assert.Equal(t, []string{"0123456"}, shas(res.Raw))
			md := l.read(t, "results/README.md")
			assert.NotContains(t, md, "89abcde")
			assert.Contains(t, md, "| [`20260101-0123456-host.txt`](raw/20260101-0123456-host.txt) | [Load](#family-load), [Map](#family-map), [WorkQueue](#family-workqueue) |")
			assert.Contains(t, l.read(t, "README.md"), "| [WorkQueue](results/README.md#family-workqueue) | `sharded` | 2.00× faster |")

			// Named on its own (--raw), it is reported: whoever names it
			// asked for it.
			l.opts.Raw = e2e
			res, err = report.Generate(l.opts)
			require.NoError(t, err)
			assert.Equal(t, []string{e2e}, res.Raw)
		})
	}
}

// TestRunsThatOnlyMentionE2EStillSupplyFamilies: the rule is what
// produced the file, not a word in its note.
func TestRunsThatOnlyMentionE2EStillSupplyFamilies(t *testing.T) {
	l := newLab(t)
	rawFile(t, l.opts.RawDir, "20260101-0123456-host.txt", "2026-01-01T00:00:00Z", labRun())
	rawFileFrom(t, l.opts.RawDir, "20260102-89abcde-host-e2e-check.txt", testCommit, "2026-01-02T00:00:00Z",
		"note: the queues again after make e2e found nothing\nload-command: make bench-save RAW_TAG=e2e-check\npkg: github.com/queuelab/queuelab/bench\n",
		[]series{wq(8, "clientgo", 4000, 3), wq(8, "ring", 1000, 1)})

	res, err := report.Generate(l.opts)
	require.NoError(t, err)
	assert.Equal(t, []string{"89abcde", "0123456"}, shas(res.Raw))
	assert.Contains(t, l.read(t, "README.md"), "| [WorkQueue](results/README.md#family-workqueue) | `ring` | 4.00× faster |")
}

// TestFamiliesWhoseCodeChangedAfterTheirRunAreStale: a family is stale when
// a commit after its raw file's touches its benchmark's file or the
// non-test files of a package that file imports, directly or not; a
// family defined in no benchmark file (load runs) is stale when any
// benchmark's code changed; a commit the history does not hold makes every
// family stale, since nothing says its numbers still hold.
func TestFamiliesWhoseCodeChangedAfterTheirRunAreStale(t *testing.T) {
	repo := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=test", "-c", "user.email=test@example.com",
			"-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	commit := func(msg string) string {
		t.Helper()
		git("add", "-A")
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	git("init", "-q")
	write("go.mod", "module example.com/lab\n\ngo 1.24\n")
	write("bench/workqueue_test.go", "package bench\n\nimport (\n\t\"testing\"\n\n\t\"example.com/lab/queues/workq\"\n)\n\n"+
		"func BenchmarkWorkQueue(b *testing.B) { _ = workq.New }\n")
	write("bench/map_test.go", "package bench\n\nimport \"testing\"\n\nfunc BenchmarkMap(b *testing.B) {}\n")
	write("queues/workq/workq.go", "package workq\n\nimport _ \"example.com/lab/internal/ring\"\n\nfunc New() {}\n")
	write("queues/workq/workq_test.go", "package workq\n")
	write("internal/ring/ring.go", "package ring\n")
	write("docs/x.md", "x\n")
	measured := commit("code as measured")

	l := newLab(t)
	l.opts.Repo, l.opts.BenchDir = repo, filepath.Join(repo, "bench")
	rawFileFrom(t, l.opts.RawDir, "20260101-0123456-host.txt", measured, "2026-01-01T00:00:00Z", benchRun, labRun())

	// Tests and files outside any benchmark's packages do not change what
	// was measured.
	write("queues/workq/workq_test.go", "package workq\n\n// more tests\n")
	write("docs/x.md", "y\n")
	commit("tests and docs")
	_, err := report.Generate(l.opts)
	require.NoError(t, err)
	assert.NotContains(t, strings.ToLower(l.read(t, "results/README.md")), "stale")
	assert.NotContains(t, l.read(t, "README.md"), "stale")

	// A package the benchmark imports through another one changes: the
	// families over it are stale, Map is not.
	write("internal/ring/ring.go", "package ring\n\n// faster\n")
	changed := commit("ring changes")
	_, err = report.Generate(l.opts)
	require.NoError(t, err)
	md := l.read(t, "results/README.md")
	why := "**Stale:** 1 commit after `" + measured[:12] + "` touches the code it measures (`" + changed[:12] + "`): re-run it."
	assert.Equal(t, 2, strings.Count(md, why), "WorkQueue and Load are stale")
	assert.Contains(t, md, "[Load (**stale**)](#family-load), [Map](#family-map), [WorkQueue (**stale**)](#family-workqueue) |")
	assert.Contains(t, l.read(t, "README.md"),
		"| [WorkQueue](results/README.md#family-workqueue) | `sharded` | 2.00× faster | no difference | no difference | "+
			"[`20260101-0123456-host.txt`](results/raw/20260101-0123456-host.txt) **stale** |")

	// A raw file measured at a commit this history lacks may describe any
	// code.
	rawFileFrom(t, l.opts.RawDir, "20260101-0123456-host.txt", testCommit, "2026-01-01T00:00:00Z", benchRun, labRun())
	_, err = report.Generate(l.opts)
	require.NoError(t, err)
	md = l.read(t, "results/README.md")
	assert.Contains(t, md, "[Load (**stale**)](#family-load), [Map (**stale**)](#family-map), [WorkQueue (**stale**)](#family-workqueue) |")
	assert.Contains(t, md, "**Stale:** its commit `"+testCommit[:12]+"` is not in this branch's history, so these numbers may not describe the code.")
}

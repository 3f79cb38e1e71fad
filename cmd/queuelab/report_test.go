package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReportWritesTheResultsPage(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw")
	require.NoError(t, os.MkdirAll(raw, 0o755))
	src := writeBench(t, "run.txt", baseNs)
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(raw, "20260101-0123456-host.txt"), data, 0o644))

	var out, errOut bytes.Buffer
	code := dispatch([]string{"report", "--raw-dir", raw, "--out", dir, "--readme", "", "--bench-dir", ""}, &out, &errOut)

	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "report from "+filepath.Join(raw, "20260101-0123456-host.txt"))
	md, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| [WorkQueue](#family-workqueue) | `sharded` | 1.67× faster |")

	check := []string{"report", "--check", "--raw-dir", raw, "--out", dir, "--readme", "", "--bench-dir", ""}
	out.Reset()
	assert.Equal(t, 0, dispatch(check, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "report is up to date")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("hand-edited"), 0o644))
	out.Reset()
	assert.Equal(t, 1, dispatch(check, &out, &errOut))
	assert.Contains(t, out.String(), "out of date: "+filepath.Join(dir, "README.md"))
}

// TestReportNeedsHistoryToJudgeStaleness: --repo names the git work tree
// whose commits decide which families are stale; a directory outside any
// is an error rather than a page that calls every number fresh.
func TestReportNeedsHistoryToJudgeStaleness(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw")
	require.NoError(t, os.MkdirAll(raw, 0o755))
	data, err := os.ReadFile(writeBench(t, "run.txt", baseNs))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(raw, "20260101-0123456-host.txt"), data, 0o644))
	args := []string{"report", "--raw-dir", raw, "--out", dir, "--readme", "", "--bench-dir", ""}

	var out, errOut bytes.Buffer
	assert.Equal(t, 2, dispatch(append(args, "--repo", t.TempDir()), &out, &errOut))
	assert.Contains(t, errOut.String(), "deciding which results are stale")
	assert.NoFileExists(t, filepath.Join(dir, "README.md"))

	errOut.Reset()
	require.Equal(t, 0, dispatch(append(args, "--repo", ""), &out, &errOut), errOut.String())
	md, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(md), "stale", "--repo '' skips the check")
}

func TestReportRejectsBadInput(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no raw files":  {[]string{"--raw-dir", t.TempDir(), "--readme", ""}, "run make bench-save first"},
		"stray args":    {[]string{"results/raw/x.txt"}, "use --raw FILE"},
		"bad format":    {[]string{"--format", "gif", "--raw-dir", t.TempDir()}, `chart format "gif"`},
		"unknown flags": {[]string{"--frobnicate"}, "flag provided but not defined"},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			assert.Equal(t, 2, dispatch(append([]string{"report"}, tc.args...), &out, &errOut))
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}

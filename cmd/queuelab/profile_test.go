package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfileSummarisesEachFile(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"mutex", "block", "heap"} {
		var buf bytes.Buffer
		require.NoError(t, pprof.Lookup(name).WriteTo(&buf, 0))
		path := filepath.Join(dir, name+".pprof")
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		paths = append(paths, path)
	}
	var out, errOut bytes.Buffer
	code := dispatch(append([]string{"profile", "--top", "3"}, paths...), &out, &errOut)

	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "== "+paths[0]+": contention profile, delay in nanoseconds")
	assert.Contains(t, out.String(), "== "+paths[1]+": contention profile, delay in nanoseconds")
	assert.Contains(t, out.String(), "== "+paths[2]+": heap profile, alloc_space in bytes")
}

func TestProfileRejectsBadInput(t *testing.T) {
	notProfile := filepath.Join(t.TempDir(), "bench.txt")
	require.NoError(t, os.WriteFile(notProfile, []byte("BenchmarkX 1 1 ns/op\n"), 0o644))
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no files":      {nil, "no profiles given"},
		"bad top":       {[]string{"--top", "0", notProfile}, "--top 0"},
		"missing file":  {[]string{filepath.Join(t.TempDir(), "nope.pprof")}, "no such file"},
		"not a profile": {[]string{notProfile}, notProfile},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			assert.Equal(t, 2, dispatch(append([]string{"profile"}, tc.args...), &out, &errOut))
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}

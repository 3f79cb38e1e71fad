package suite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// OpFileExt is the extension of a saved differential op sequence.
const OpFileExt = ".ops"

// KeepFailingOps makes a failing differential check replayable, as
// pebble's metamorphic tests keep every failing run: when t has failed by
// the time it ends, ops — the byte string the check decoded its
// operations from — is written to t's artifact directory (kept with
// `go test -artifacts`) and the log says where to commit it, under the
// replaying test's testdata, so the failure is checked on every run from
// then on. Every exported Diff calls it first.
func KeepFailingOps(t *testing.T, ops []byte) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + OpFileExt
		path := filepath.Join(t.ArtifactDir(), name)
		if err := os.WriteFile(path, ops, 0o644); err != nil {
			t.Logf("could not keep the failing ops: %v", err)
			return
		}
		t.Logf("failing ops kept in %s (run with -artifacts to keep the directory); commit the file under the replaying test's testdata/diff/<family>/ to check it on every run", path)
	})
}

// OpFiles returns the saved op sequences under dir (name → bytes), sorted
// by name, for a test that replays each through a family's Diff. A missing
// dir is no files; an unreadable one fails t.
func OpFiles(t *testing.T, dir string) (names []string, ops map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	ops = make(map[string][]byte)
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != OpFileExt {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name())
		ops[e.Name()] = b
	}
	slices.Sort(names)
	return names, ops
}

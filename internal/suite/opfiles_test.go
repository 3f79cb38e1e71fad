package suite

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOpFilesReadsOnlyOpFilesInOrder(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"b.ops": "B", "a.ops": "A", "notes.txt": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names, ops := OpFiles(t, dir)
	if len(names) != 2 || names[0] != "a.ops" || names[1] != "b.ops" {
		t.Fatalf("names = %v, want [a.ops b.ops]", names)
	}
	if string(ops["a.ops"]) != "A" || string(ops["b.ops"]) != "B" {
		t.Fatalf("ops = %q", ops)
	}
	if names, _ := OpFiles(t, filepath.Join(dir, "missing")); names != nil {
		t.Fatalf("a missing directory gave %v", names)
	}
}

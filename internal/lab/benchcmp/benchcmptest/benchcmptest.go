// Package benchcmptest writes benchmark files for tests of the results
// pipeline: benchfmt text with deterministic samples that still have a
// realistic spread, so medians, intervals and U tests behave as on real
// runs while assertions stay exact.
package benchcmptest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Spread is the ±2% noise applied, in turn, to successive samples.
var Spread = []float64{0.99, 1.01, 1.0, 0.98, 1.02, 1.005}

// Metric is one value of a benchmark line: Value before noise, in Unit.
type Metric struct {
	Value float64
	Unit  string
}

// File accumulates the text of a benchmark file.
type File struct{ b strings.Builder }

// New starts a file with header lines (e.g. "commit: abc\nUnit x better=higher\n").
func New(header string) *File {
	f := &File{}
	f.b.WriteString(header)
	return f
}

// Add appends n samples of benchmark name ("BenchmarkX/k=v/impl=y-2"),
// each metric scaled by the next factor of Spread.
func (f *File) Add(name string, n int, metrics ...Metric) *File {
	for i := range n {
		fmt.Fprintf(&f.b, "%s\t%d", name, 1000+i)
		for _, m := range metrics {
			fmt.Fprintf(&f.b, "\t%.2f %s", m.Value*Spread[i%len(Spread)], m.Unit)
		}
		f.b.WriteString("\n")
	}
	return f
}

// Raw appends line verbatim.
func (f *File) Raw(line string) *File {
	f.b.WriteString(line + "\n")
	return f
}

// Write writes the file as dir/name (creating dir) and returns its path.
func (f *File) Write(t testing.TB, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(f.b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

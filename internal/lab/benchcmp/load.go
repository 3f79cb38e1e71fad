// Package benchcmp turns benchmark files into comparisons the lab can stand
// behind: it reads benchfmt text with golang.org/x/perf/benchfmt, groups it
// with golang.org/x/perf/benchproc (rows by everything but the column key,
// columns by implementation or by file) and summarises and compares samples
// with golang.org/x/perf/benchmath (medians, confidence intervals,
// Mann-Whitney U tests), exactly as benchstat does.
//
// On top of that it knows the lab's conventions: every ratio is taken
// against a baseline implementation (client-go's, named "clientgo"), a
// difference counts only when it is statistically significant, and a
// regression gate fails when an implementation got significantly worse than
// a tolerance on a metric whose direction is known.
package benchcmp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Data is every benchmark result read from a set of files, plus what the
// files said about themselves.
type Data struct {
	// Files are the labels of the files read, in the order given; results
	// carry the label in their ".file" configuration key.
	Files []string
	// Headers holds, per file label, the file configuration lines that
	// precede the first benchmark line (commit:, go:, client-go:, cpu:,
	// note:, goos:, pkg: ...). The first value of a key wins.
	Headers map[string]map[string]string
	// Units is the unit metadata ("Unit x better=higher") of all files.
	Units benchfmt.UnitMetadataMap
	// Warnings are the syntax errors benchfmt skipped over, with positions.
	Warnings []string

	results []*benchfmt.Result
}

// Load reads the benchmark files at paths. A path may be given as
// label=path to name the file in comparisons. A file that cannot be read is
// an error; a malformed line is a warning, as it is for benchstat.
func Load(paths ...string) (*Data, error) {
	if len(paths) == 0 {
		return nil, errors.New("no benchmark files given")
	}
	d := &Data{Headers: make(map[string]map[string]string)}
	for _, p := range paths {
		label, path := splitLabel(p)
		h, err := ReadHeader(path)
		if err != nil {
			return nil, err
		}
		if _, dup := d.Headers[label]; dup {
			return nil, fmt.Errorf("file %q given twice (label one of them: name=path)", label)
		}
		d.Files = append(d.Files, label)
		d.Headers[label] = h
	}
	files := benchfmt.Files{Paths: paths, AllowLabels: true}
	d.scan(&files)
	if err := files.Err(); err != nil {
		return nil, err
	}
	d.Units = files.Units()
	return d, nil
}

// results is what benchfmt.Files and benchfmt.Reader have in common.
type results interface {
	Scan() bool
	Result() benchfmt.Record
}

func (d *Data) scan(rs results) {
	for rs.Scan() {
		switch rec := rs.Result().(type) {
		case *benchfmt.Result:
			d.results = append(d.results, rec.Clone())
		case *benchfmt.SyntaxError:
			d.Warnings = append(d.Warnings, rec.Error())
		}
	}
}

// Read reads benchmark text held in memory (a load run's results on their
// way to a table) as one file named label.
func Read(label string, text []byte) (*Data, error) {
	h, err := readHeader(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	d := &Data{Files: []string{label}, Headers: map[string]map[string]string{label: h}}
	r := benchfmt.NewReader(bytes.NewReader(text), label)
	d.scan(r)
	if err := r.Err(); err != nil {
		return nil, err
	}
	d.Units = r.Units()
	return d, nil
}

// Len is the number of benchmark result lines read.
func (d *Data) Len() int { return len(d.results) }

func splitLabel(p string) (label, path string) {
	if i := strings.Index(p, "="); i > 0 {
		return p[:i], p[i+1:]
	}
	return p, p
}

// ReadHeader collects the "key: value" lines of path before its first
// benchmark line. benchfmt attaches them to results, but a file may have no
// results at all (an empty run) and the report still wants to say where it
// came from.
func ReadHeader(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readHeader(f)
}

func readHeader(r io.Reader) (map[string]string, error) {
	h := make(map[string]string)
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for s.Scan() {
		line := s.Bytes()
		if bytes.HasPrefix(line, []byte("Benchmark")) {
			break
		}
		key, val, ok := headerLine(string(line))
		if ok && val != "" {
			if _, seen := h[key]; !seen {
				h[key] = val
			}
		}
	}
	return h, s.Err()
}

// headerLine parses benchfmt's file configuration syntax: a key that starts
// with a lower-case letter and has no spaces or upper-case letters, a colon,
// then blanks and the value.
func headerLine(line string) (key, val string, ok bool) {
	colon := strings.IndexByte(line, ':')
	if colon <= 0 {
		return "", "", false
	}
	key = line[:colon]
	if key[0] < 'a' || key[0] > 'z' || strings.ContainsAny(key, " \t") || strings.ToLower(key) != key {
		return "", "", false
	}
	rest := line[colon+1:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", false
	}
	return key, strings.TrimSpace(rest), true
}

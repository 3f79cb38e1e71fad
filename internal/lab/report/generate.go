package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
)

// Options say where the report reads and writes.
type Options struct {
	// Raw is the one raw benchmark file to report on; empty means every
	// raw file in RawDir, each family taken from the newest that holds it,
	// runs against a real API server (make e2e) excepted.
	Raw string
	// RawDir holds raw files named <yyyymmdd>-<sha>-<host>[-<tag>].txt.
	RawDir string
	// OutDir receives README.md and charts/.
	OutDir string
	// Readme is the top-level README whose headline block is rewritten;
	// empty skips it.
	Readme string
	// BenchDir holds the benchmarks' sources, whose doc comments describe
	// the families; empty describes none.
	BenchDir string
	// Baseline is the implementation ratios are taken against.
	Baseline string
	// ChartFormat is "svg" or "png".
	ChartFormat string
	// Alpha and Confidence as in benchcmp.Options (0 = defaults).
	Alpha, Confidence float64
	// Repo is the git work tree whose history decides which families are
	// stale: measured at a commit that later commits touching their code
	// follow. Empty skips the check.
	Repo string
	// Check writes nothing: Generate only lists, in Result.Stale, the files
	// that a real run would create, change or delete, so CI can verify that
	// committed results are up to date.
	Check bool
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.ChartFormat == "" {
		o.ChartFormat = "svg"
	}
	return o
}

// Result says what Generate wrote.
type Result struct {
	// Raw are the raw files that supplied at least one family.
	Raw    []string
	Files  []string
	Charts int
	// Stale lists the files that differed from what was generated (written
	// unless Options.Check).
	Stale []string
}

// Generate writes OutDir/README.md, OutDir/charts/* (removing charts it no
// longer produces) and the headline block of Readme.
func Generate(o Options) (*Result, error) {
	o = o.withDefaults()
	if o.ChartFormat != "svg" && o.ChartFormat != "png" {
		return nil, fmt.Errorf("chart format %q: want svg or png", o.ChartFormat)
	}
	raws := []string{o.Raw}
	if o.Raw == "" {
		var err error
		if raws, err = byAge(o.RawDir); err != nil {
			return nil, err
		}
	}
	docs, err := benchDocs(o.BenchDir)
	if err != nil {
		return nil, err
	}
	pg := &page{opts: o, docs: docs, charts: make(map[string][]Chart)}
	res := &Result{}
	for _, raw := range raws {
		fams, scaling, warnings, err := load(raw, o, pg.families, pg.scaling)
		if err != nil {
			return nil, err
		}
		if len(fams)+len(scaling) == 0 {
			continue
		}
		res.Raw = append(res.Raw, raw)
		for _, f := range slices.Concat(fams, scaling) {
			if f.pageSrc, err = relPath(o.OutDir, raw); err != nil {
				return nil, err
			}
			if o.Readme != "" {
				if f.topSrc, err = relPath(filepath.Dir(o.Readme), raw); err != nil {
					return nil, err
				}
			}
		}
		pg.families = append(pg.families, fams...)
		pg.scaling = append(pg.scaling, scaling...)
		for _, w := range warnings {
			pg.warnings = append(pg.warnings, raw+": "+w)
		}
	}
	byName := func(a, b *Family) int { return strings.Compare(a.Name, b.Name) }
	slices.SortStableFunc(pg.families, byName)
	slices.SortStableFunc(pg.scaling, byName)
	if o.Repo != "" {
		ix, err := newCodeIndex(o.Repo, o.BenchDir)
		if err != nil {
			return nil, err
		}
		for _, f := range slices.Concat(pg.families, pg.scaling) {
			f.Stale = ix.staleness(f.Name, f.Header["commit"])
		}
	}
	pg.recs = recommendations(pg.families)
	pg.lines = headline(pg.recs)
	chartDir := filepath.Join(o.OutDir, "charts")
	keep := make(map[string]bool)
	for _, f := range slices.Concat(pg.families, pg.scaling) {
		charts, err := f.charts(o.ChartFormat)
		if err != nil {
			return nil, err
		}
		pg.charts[f.key()] = append(pg.charts[f.key()], charts...)
		for _, c := range charts {
			path := filepath.Join(o.OutDir, filepath.FromSlash(c.Path))
			if err := res.write(path, c.data, o.Check); err != nil {
				return nil, err
			}
			keep[path] = true
			res.Files = append(res.Files, path)
			res.Charts++
		}
	}
	if err := res.removeStale(chartDir, keep, o.Check); err != nil {
		return nil, err
	}
	var md bytes.Buffer
	pg.write(&md)
	readme := filepath.Join(o.OutDir, "README.md")
	if err := res.write(readme, md.Bytes(), o.Check); err != nil {
		return nil, err
	}
	res.Files = append(res.Files, readme)
	if o.Readme != "" {
		top, err := os.ReadFile(o.Readme)
		if err != nil {
			return nil, err
		}
		out, err := spliceHeadline(top, headlineBlock(pg.lines, o.Baseline))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Readme, err)
		}
		if err := res.write(o.Readme, out, o.Check); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, o.Readme)
	}
	return res, nil
}

// load reads one raw file and returns its families that none of have
// already supplies, and its scaling measurements that none of haveScaling
// does: a family measured at several GOMAXPROCS (make bench-scaling) is
// charted by core count and never supplies the family's tables, which
// compare implementations at one GOMAXPROCS over the whole matrix.
func load(raw string, o Options, have, haveScaling []*Family) (fams, scaling []*Family, warnings []string, err error) {
	data, err := benchcmp.Load(raw)
	if err != nil {
		return nil, nil, nil, err
	}
	grid, err := data.Group(benchcmp.ByImpl, benchcmp.Options{Alpha: o.Alpha, Confidence: o.Confidence})
	if err != nil {
		return nil, nil, nil, err
	}
	named := func(name string) func(f *Family) bool { return func(f *Family) bool { return f.Name == name } }
	for _, name := range grid.Families() {
		f := newFamily(grid, name, raw, data.Headers[raw], o.Baseline)
		switch {
		case !f.Scaling && !slices.ContainsFunc(have, named(name)):
			fams = append(fams, f)
		case f.Scaling && !slices.ContainsFunc(haveScaling, named(name)):
			scaling = append(scaling, f)
		}
	}
	return fams, scaling, data.Warnings, nil
}

// byAge returns the raw files in dir that may supply families, newest
// first: by the "date:" header that bench-save writes, then by name (whose
// yyyymmdd prefix sorts by day). Files still being written (.partial) or
// from failed runs (.failed) are not candidates, nor are runs against a
// real API server (see apiServerRun).
func byAge(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no raw benchmark files (*.txt) in %s: run make bench-save first", dir)
	}
	type cand struct{ date, name, path string }
	var cands []cand
	for _, p := range paths {
		d, err := benchcmp.ReadHeader(p)
		if err != nil {
			return nil, err
		}
		if apiServerRun(d) {
			continue
		}
		cands = append(cands, cand{d["date"], filepath.Base(p), p})
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if c := strings.Compare(b.date, a.date); c != 0 {
			return c
		}
		return strings.Compare(b.name, a.name)
	})
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.path
	}
	return out, nil
}

// e2ePackage is the package of the harness behind make e2e, which names
// it in the "pkg:" line it writes above its benchmark lines.
const e2ePackage = "github.com/queuelab/queuelab/loadgen/e2e"

// apiServerRun reports whether a raw file's header says it was produced by
// make e2e: controllers against a real kube-apiserver and etcd, possibly
// with faults injected (E2E_RESTART stops the server mid-run). Such a run
// measures the API server, etcd and the injected outage as much as the
// implementations, at a scale and a round count of its own, so it is not
// the lab's standard configuration and must never be what a family's
// tables and the headline quote, however new it is; results/notes.md
// cites it instead. The file is judged by what it says about itself, not
// by its name: the harness's own "pkg:" line, or a load-command, or a
// note that begins with the make e2e invocation (files whose commands
// were recorded by hand). A file named with --raw is reported regardless:
// whoever names it asked for it.
func apiServerRun(header map[string]string) bool {
	return header["pkg"] == e2ePackage || makesE2E(header["load-command"]) || makesE2E(header["note"])
}

// makesE2E reports whether s starts with a make command whose first target
// is e2e; flags and variable assignments before it are skipped.
func makesE2E(s string) bool {
	words := strings.Fields(s)
	if len(words) == 0 || filepath.Base(words[0]) != "make" {
		return false
	}
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") || strings.Contains(w, "=") {
			continue
		}
		return strings.TrimRight(w, ":;,") == "e2e"
	}
	return false
}

func relPath(from, to string) (string, error) {
	from, err := filepath.Abs(from)
	if err != nil {
		return "", err
	}
	if to, err = filepath.Abs(to); err != nil {
		return "", err
	}
	r, err := filepath.Rel(from, to)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(r), nil
}

// write leaves an identical file alone so mtimes and git stay quiet when
// nothing changed, and records a file that differs as stale.
func (r *Result) write(path string, data []byte, check bool) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	r.Stale = append(r.Stale, path)
	if check {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// removeStale deletes chart files in dir that this run did not produce.
func (r *Result) removeStale(dir string, keep map[string]bool, check bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		ext := filepath.Ext(e.Name())
		if !e.Type().IsRegular() || (ext != ".svg" && ext != ".png") || keep[path] {
			continue
		}
		r.Stale = append(r.Stale, path)
		if !check {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// sampleCounts returns the fewest and most samples in a cell of f.
func sampleCounts(f *Family) (lo, hi int) {
	for _, r := range f.Rows {
		for _, c := range f.Impls {
			for _, u := range f.Units {
				if cell := f.Grid.Cell(r, c, u); cell != nil {
					n := cell.N()
					if hi == 0 || n < lo {
						lo = n
					}
					hi = max(hi, n)
				}
			}
		}
	}
	return lo, hi
}

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

	"github.com/queuelab/queuelab/internal/benchcmp"
)

// Options say where the report reads and writes.
type Options struct {
	// Raw is the raw benchmark file to report on; empty means the newest
	// in RawDir.
	Raw string
	// RawDir holds raw files named <yyyymmdd>-<sha>-<host>.txt.
	RawDir string
	// OutDir receives README.md and charts/.
	OutDir string
	// Readme is the top-level README whose headline block is rewritten;
	// empty skips it.
	Readme string
	// Notes is a hand-written markdown file included verbatim; missing is
	// fine.
	Notes string
	// Baseline is the implementation ratios are taken against.
	Baseline string
	// ChartFormat is "svg" or "png".
	ChartFormat string
	// Alpha and Confidence as in benchcmp.Options (0 = defaults).
	Alpha, Confidence float64
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
	Raw    string
	Files  []string
	Charts int
	// Stale lists the files that differed from what was generated (written
	// unless Options.Check).
	Stale []string
}

// Generate writes OutDir/README.md, OutDir/charts/* (removing charts it no
// longer produces) and the headline block of Readme from one raw file.
func Generate(o Options) (*Result, error) {
	o = o.withDefaults()
	if o.ChartFormat != "svg" && o.ChartFormat != "png" {
		return nil, fmt.Errorf("chart format %q: want svg or png", o.ChartFormat)
	}
	raw := o.Raw
	if raw == "" {
		var err error
		if raw, err = Newest(o.RawDir); err != nil {
			return nil, err
		}
	}
	data, err := benchcmp.Load(raw)
	if err != nil {
		return nil, err
	}
	grid, err := data.Group(benchcmp.ByImpl, benchcmp.Options{Alpha: o.Alpha, Confidence: o.Confidence})
	if err != nil {
		return nil, err
	}
	m := newModel(grid, o.Baseline)
	rawRel, err := relPath(o.OutDir, raw)
	if err != nil {
		return nil, err
	}
	pg := &page{m: m, rawRel: rawRel, header: data.Headers[raw], charts: make(map[string][]Chart),
		recs: m.Recommend(), lines: headline(m), opts: o, warning: data.Warnings}
	pg.counts, pg.procs = sampleCounts(grid), gomaxprocs(grid)
	if notes, err := os.ReadFile(o.Notes); err == nil {
		pg.notes = string(notes)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	res := &Result{Raw: raw}
	chartDir := filepath.Join(o.OutDir, "charts")
	keep := make(map[string]bool)
	for _, f := range m.Families {
		charts, err := m.charts(f, o.ChartFormat)
		if err != nil {
			return nil, err
		}
		pg.charts[f.Name] = charts
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
		rawFromTop, err := relPath(filepath.Dir(o.Readme), raw)
		if err != nil {
			return nil, err
		}
		out, err := spliceHeadline(top, headlineBlock(pg.lines, rawFromTop, pg.header["commit"], o.Baseline))
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

// Newest returns the newest raw file in dir: by the "date:" header that
// bench-save writes, then by name (whose yyyymmdd prefix sorts by day).
// Files still being written (.partial) or from failed runs (.failed) are
// not candidates.
func Newest(dir string) (string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return "", err
	}
	if len(paths) == 0 {
		return "", fmt.Errorf("no raw benchmark files (*.txt) in %s: run make bench-save first", dir)
	}
	type cand struct{ date, name, path string }
	var cands []cand
	for _, p := range paths {
		d, err := benchcmp.ReadHeader(p)
		if err != nil {
			return "", err
		}
		cands = append(cands, cand{d["date"], filepath.Base(p), p})
	}
	best := slices.MaxFunc(cands, func(a, b cand) int {
		if c := strings.Compare(a.date, b.date); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	return best.path, nil
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

func sampleCounts(g *benchcmp.Grid) [2]int {
	out := [2]int{0, 0}
	for _, r := range g.Rows {
		for _, c := range g.Columns {
			for _, u := range g.Units {
				if cell := g.Cell(r, c, u); cell != nil {
					n := cell.N()
					if out[1] == 0 || n < out[0] {
						out[0] = n
					}
					out[1] = max(out[1], n)
				}
			}
		}
	}
	return out
}

func gomaxprocs(g *benchcmp.Grid) []string {
	var out []string
	for _, r := range g.Rows {
		if v, ok := r.Param("gomaxprocs"); ok && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

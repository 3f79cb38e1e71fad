package benchcmp

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteRatios prints, per family and unit, a table with one row per
// benchmark and one column per implementation: the baseline's median and
// confidence interval, and every other implementation's ratio to it with
// its p-value, or "~" where the difference is not significant. Composed
// implementations are compared to the all-baseline combination of as many
// parts (see PeerOf), whose own column shows medians. A family without the
// baseline shows every implementation's median instead.
func (g *Grid) WriteRatios(w io.Writer, baseline string) error {
	return g.writeTables(w, func(rows []*Row, unit string) ([]string, func(*Row, int) string, string) {
		cols := g.ColumnsOf(rows, unit)
		abs := g.absolute(unit)
		base := BaselineOf(cols, baseline)
		if base == "" {
			return cols, func(r *Row, i int) string { return abs(r, cols[i]) }, "medians, no " + baseline + " rows"
		}
		cols = append([]string{base}, slices.DeleteFunc(cols, func(c string) bool { return c == base })...)
		title := "ratio to " + base
		if slices.ContainsFunc(cols, func(c string) bool { return strings.Contains(c, "+") }) {
			atom, _, _ := strings.Cut(base, "+")
			title += " (a combination: to the all-" + atom + " one of its size)"
		}
		return cols, func(r *Row, i int) string {
			if peer := PeerOf(cols[i], base); i > 0 && peer != cols[i] {
				if c := g.Compare(r, unit, peer, cols[i]); c != nil {
					return c.RatioString()
				}
			}
			return abs(r, cols[i])
		}, title + ", " + g.insignificant()
	})
}

// WriteChanges prints, per family and unit, every benchmark (implementation
// included) in each file, and the change of every later file against the
// first, benchstat style.
func (g *Grid) WriteChanges(w io.Writer) error {
	if len(g.Columns) == 0 {
		return g.writeTables(w, nil)
	}
	base := g.Columns[0]
	return g.writeTables(w, func(rows []*Row, unit string) ([]string, func(*Row, int) string, string) {
		var heads, files []string
		for _, c := range g.ColumnsOf(rows, unit) {
			heads, files = append(heads, c), append(files, c)
			if c != base {
				// The delta column compares the file just before it.
				heads, files = append(heads, "vs "+base), append(files, "")
			}
		}
		abs := g.absolute(unit)
		return heads, func(r *Row, i int) string {
			if files[i] != "" {
				return abs(r, files[i])
			}
			if c := g.Compare(r, unit, base, files[i-1]); c != nil {
				return c.DeltaString()
			}
			return "—"
		}, "change vs " + base + ", " + g.insignificant()
	})
}

func (g *Grid) absolute(unit string) func(*Row, string) string {
	return func(r *Row, col string) string {
		if c := g.Cell(r, col, unit); c != nil {
			return FormatSummary(c, unit)
		}
		return "—"
	}
}

// tableFunc lays out one family's table for unit: the column headings and
// the text of the cell of a row in the i-th column.
// what describes the cells for the table's heading.
type tableFunc func(rows []*Row, unit string) (heads []string, cell func(r *Row, i int) string, what string)

func (g *Grid) writeTables(w io.Writer, table tableFunc) error {
	if len(g.Rows) == 0 {
		_, err := fmt.Fprintln(w, "no benchmark results")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, fam := range g.Families() {
		rows := g.RowsOf(fam)
		for _, unit := range g.UnitsOf(rows) {
			heads, cell, what := table(rows, unit)
			fmt.Fprintf(tw, "%s · %s (%s) · %s\n", fam, unit, g.Better(unit), what)
			fmt.Fprint(tw, "benchmark")
			for _, h := range heads {
				fmt.Fprintf(tw, "\t%s", orNone(h))
			}
			fmt.Fprintln(tw)
			for _, r := range rows {
				if len(g.ColumnsOf([]*Row{r}, unit)) == 0 {
					continue
				}
				fmt.Fprint(tw, r.Sub())
				for i := range heads {
					fmt.Fprintf(tw, "\t%s", cell(r, i))
				}
				fmt.Fprintln(tw)
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

func (g *Grid) insignificant() string {
	return fmt.Sprintf("~ = no significant difference (alpha %.2g)", g.opts.Alpha)
}

package benchcmp

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Table is the one shape every result of the lab is printed in: `queuelab
// compare` and `queuelab run` write it as text, the results page as
// markdown, so a number reads the same wherever it appears.
type Table struct {
	// Title says what the table answers, and in which direction.
	Title string
	// Head names the columns, the row labels' first.
	Head []string
	Rows [][]TableCell
}

// TableCell is one table cell. Strong marks a significant improvement on the
// baseline, which markdown shows in bold.
type TableCell struct {
	Text   string
	Strong bool
}

// WriteText writes the table aligned with spaces, under its title.
func (t *Table) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, t.Title)
	fmt.Fprintln(tw, strings.Join(t.Head, "\t"))
	for _, r := range t.Rows {
		texts := make([]string, len(r))
		for i, c := range r {
			texts[i] = c.Text
		}
		fmt.Fprintln(tw, strings.Join(texts, "\t"))
	}
	fmt.Fprintln(tw)
	return tw.Flush()
}

// WriteMarkdown writes the table as a markdown table, without its title
// (the page makes it a heading).
func (t *Table) WriteMarkdown(w io.Writer) error {
	esc := strings.NewReplacer("|", `\|`)
	var b strings.Builder
	b.WriteString("|")
	for _, h := range t.Head {
		b.WriteString(" " + esc.Replace(h) + " |")
	}
	b.WriteString("\n|" + strings.Repeat("---|", len(t.Head)) + "\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, c := range r {
			text := esc.Replace(c.Text)
			if c.Strong {
				text = "**" + text + "**"
			}
			b.WriteString(" " + text + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Line is one row of a ratio table: a label, the benchmark, and the units
// its cells show (joined by " · " when there are several).
type Line struct {
	Label string
	Row   *Row
	Units []string
}

// RatioTables lays lines out against the implementations measured on them:
// the baseline's median with its confidence interval, and every other
// implementation's ratio to it, marked "~" where the difference is not
// significant. Composed implementations ("lockfree+ring") are compared to
// the all-baseline combination of as many parts (PeerOf), and each such
// combination heads its own tables. maxImpls > 0 splits the columns so that
// no table has more than maxImpls implementations beside its baseline; a
// table keeps only the lines it has numbers for. Without a baseline the
// cells are medians.
func (g *Grid) RatioTables(title string, lines []Line, baseline string, maxImpls int) []*Table {
	var cols []string
	for _, c := range g.Columns {
		if slices.ContainsFunc(lines, func(l Line) bool { return g.has(l, c) }) {
			cols = append(cols, c)
		}
	}
	base := BaselineOf(cols, baseline)
	type group struct {
		peer    string // "" when the peer was not measured
		members []string
	}
	var groups []*group
	for _, c := range cols {
		peer := ""
		if base != "" {
			peer = PeerAmong(cols, c, base)
		}
		if !slices.Contains(cols, peer) {
			peer = ""
		}
		i := slices.IndexFunc(groups, func(gr *group) bool { return gr.peer == peer })
		if i < 0 {
			groups = append(groups, &group{peer: peer})
			i = len(groups) - 1
		}
		if c != peer {
			groups[i].members = append(groups[i].members, c)
		}
	}
	var out []*Table
	for _, gr := range groups {
		chunks := [][]string{gr.members}
		if maxImpls > 0 && len(gr.members) > maxImpls {
			// Even chunks: 7 as 4 and 3, not 6 and a lone 1.
			n := (len(gr.members) + maxImpls - 1) / maxImpls
			chunks = slices.Collect(slices.Chunk(gr.members, (len(gr.members)+n-1)/n))
		}
		for _, members := range chunks {
			if t := g.ratioTable(title, lines, gr.peer, members); t != nil {
				out = append(out, t)
			}
		}
	}
	if len(out) > 1 {
		for i, t := range out {
			t.Title += fmt.Sprintf(" (%d/%d)", i+1, len(out))
		}
	}
	return out
}

func (g *Grid) ratioTable(title string, lines []Line, peer string, members []string) *Table {
	t := &Table{Title: title, Head: []string{"benchmark"}}
	cols := members
	if peer != "" {
		cols = append([]string{peer}, members...)
	}
	for _, c := range cols {
		t.Head = append(t.Head, orNone(c))
	}
	for _, l := range lines {
		if !slices.ContainsFunc(members, func(c string) bool { return g.has(l, c) }) &&
			(len(members) > 0 || !g.has(l, peer)) {
			continue
		}
		row := []TableCell{{Text: l.Label}}
		for _, c := range cols {
			row = append(row, g.cell(l, peer, c))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

func (g *Grid) has(l Line, col string) bool {
	return slices.ContainsFunc(l.Units, func(u string) bool { return g.Cell(l.Row, col, u) != nil })
}

// cell renders col's numbers on line l: medians for the peer itself or
// where the peer was not measured, ratios to it otherwise.
func (g *Grid) cell(l Line, peer, col string) TableCell {
	var parts []string
	strong := true
	for _, u := range l.Units {
		c := g.Cell(l.Row, col, u)
		if c == nil {
			parts = append(parts, "—")
			strong = false
			continue
		}
		cmp := g.Compare(l.Row, u, peer, col)
		if col == peer || cmp == nil {
			parts = append(parts, FormatSummary(c, u))
			strong = false
			continue
		}
		parts = append(parts, cmp.RatioCell())
		worse, ok := cmp.Worse(g.Better(u))
		strong = strong && cmp.Significant() && ok && worse < 0
	}
	return TableCell{Text: strings.Join(parts, " · "), Strong: strong}
}

// WriteRatios prints, per family and unit, every benchmark against the
// baseline (see RatioTables), as `queuelab compare FILE` does.
func (g *Grid) WriteRatios(w io.Writer, baseline string) error {
	if len(g.Rows) == 0 {
		_, err := fmt.Fprintln(w, "no benchmark results")
		return err
	}
	for _, fam := range g.Families() {
		rows := g.RowsOf(fam)
		for _, unit := range g.UnitsOf(rows) {
			var lines []Line
			for _, r := range rows {
				lines = append(lines, Line{Label: r.Sub(), Units: []string{unit}, Row: r})
			}
			title := fmt.Sprintf("%s · %s (%s)", fam, unit, g.Better(unit))
			for _, t := range g.RatioTables(title, lines, baseline, 0) {
				if err := t.WriteText(w); err != nil {
					return err
				}
			}
		}
	}
	_, err := fmt.Fprintln(w, g.insignificant())
	return err
}

// WriteChanges prints, per family and unit, every benchmark (implementation
// included) in each file, and the change of every later file against the
// first, benchstat style.
func (g *Grid) WriteChanges(w io.Writer) error {
	if len(g.Rows) == 0 || len(g.Columns) == 0 {
		_, err := fmt.Fprintln(w, "no benchmark results")
		return err
	}
	base := g.Columns[0]
	for _, fam := range g.Families() {
		rows := g.RowsOf(fam)
		for _, unit := range g.UnitsOf(rows) {
			t := &Table{Title: fmt.Sprintf("%s · %s (%s) · change vs %s", fam, unit, g.Better(unit), base), Head: []string{"benchmark"}}
			files := g.ColumnsOf(rows, unit)
			for _, c := range files {
				t.Head = append(t.Head, c)
				if c != base {
					t.Head = append(t.Head, "vs "+base)
				}
			}
			for _, r := range rows {
				if len(g.ColumnsOf([]*Row{r}, unit)) == 0 {
					continue
				}
				row := []TableCell{{Text: r.Sub()}}
				for _, c := range files {
					row = append(row, TableCell{Text: g.median(r, c, unit)})
					if c == base {
						continue
					}
					delta := "—"
					if cmp := g.Compare(r, unit, base, c); cmp != nil {
						delta = cmp.DeltaString()
					}
					row = append(row, TableCell{Text: delta})
				}
				t.Rows = append(t.Rows, row)
			}
			if err := t.WriteText(w); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *Grid) median(r *Row, col, unit string) string {
	if c := g.Cell(r, col, unit); c != nil {
		return FormatSummary(c, unit)
	}
	return "—"
}

func (g *Grid) insignificant() string {
	return fmt.Sprintf("~ = no significant difference (alpha %.2g; fewer than 4 samples a side never are)", g.opts.Alpha)
}

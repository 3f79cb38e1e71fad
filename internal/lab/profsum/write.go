package profsum

import (
	"fmt"
	"io"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"
)

// Write prints s under a heading naming the profile (its file name): for
// contention profiles the contended call sites first, then the top
// functions by flat and by cumulative cost.
func Write(w io.Writer, name string, s *Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "== %s: %s profile, %s in %s: total %s", name, s.Kind, s.Value, s.Unit, s.format(s.Total))
	if s.TotalCount > 0 {
		fmt.Fprintf(tw, " over %d %s", s.TotalCount, s.countName())
	}
	fmt.Fprintln(tw)
	if s.Total == 0 {
		fmt.Fprintln(tw, "(no samples: for mutex/block profiles run go test with -mutexprofilefraction/-blockprofilerate)")
		return tw.Flush()
	}
	if s.Kind == Contention {
		fmt.Fprintln(tw, "contended call sites (the lock or wait, the code that called it, and its caller):")
		fmt.Fprintln(tw, "  delay\tshare\tcount\twait\tcalled from\tvia")
		for _, site := range s.Sites {
			fmt.Fprintf(tw, "  %s\t%.1f%%\t%d\t%s\t%s\t%s\n", s.format(site.Delay), 100*site.Frac, site.Count, orDash(site.Wait), site.Caller, orDash(site.Via))
		}
	}
	s.writeEntries(tw, "top by flat (own cost):", s.Flat, func(e Entry) (int64, float64, int64) { return e.Flat, e.FlatFrac, e.FlatCount })
	s.writeEntries(tw, "top by cumulative (with callees):", s.Cum, func(e Entry) (int64, float64, int64) { return e.Cum, e.CumFrac, e.CumCount })
	fmt.Fprintln(tw)
	return tw.Flush()
}

func (s *Summary) writeEntries(tw io.Writer, title string, entries []Entry, pick func(Entry) (int64, float64, int64)) {
	fmt.Fprintln(tw, title)
	counted := s.TotalCount > 0
	if counted {
		fmt.Fprintf(tw, "  %s\tshare\t%s\tfunction\n", s.Value, s.countName())
	} else {
		fmt.Fprintf(tw, "  %s\tshare\tfunction\n", s.Value)
	}
	for _, e := range entries {
		v, f, c := pick(e)
		if counted {
			fmt.Fprintf(tw, "  %s\t%.1f%%\t%d\t%s\n", s.format(v), 100*f, c, e.Func)
		} else {
			fmt.Fprintf(tw, "  %s\t%.1f%%\t%s\n", s.format(v), 100*f, e.Func)
		}
	}
}

func (s *Summary) countName() string {
	if s.Kind == Heap {
		return "objects"
	}
	return "events"
}

// format renders v in the profile's unit.
func (s *Summary) format(v int64) string {
	switch s.Unit {
	case "nanoseconds":
		return benchunit.Scale(float64(v)/1e9, benchunit.Decimal) + "s"
	case "bytes":
		return benchunit.Scale(float64(v), benchunit.Binary) + "B"
	}
	return fmt.Sprint(v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

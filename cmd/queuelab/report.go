package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/lab/report"
)

const reportUsage = `usage: queuelab report [flags]

Regenerates results/README.md (headline, "which one should I use", tables
of ratios to the baseline, charts) and results/charts/ from the raw files
in results/raw, each family from the newest file that measured it (never
a run against a real API server, make e2e), and
rewrites the headline table between the
` + report.HeadlineBegin + ` / ` + report.HeadlineEnd + ` markers of README.md.
A family measured at several GOMAXPROCS (make bench-scaling) is charted by
core count instead. A family whose code (its benchmark's file and the
packages it imports) changed in a commit after its raw file's is marked
stale.
The output depends only on the inputs, so re-running it on a committed
results/ must change nothing.

flags:
`

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsage); fs.PrintDefaults() }
	var o report.Options
	fs.StringVar(&o.Raw, "raw", "", "one raw benchmark file to report on (default: every file in --raw-dir, each family from the newest that has it)")
	fs.StringVar(&o.RawDir, "raw-dir", "results/raw", "directory of raw benchmark files")
	fs.StringVar(&o.OutDir, "out", "results", "directory for README.md and charts/")
	fs.StringVar(&o.Readme, "readme", "README.md", `top-level README with headline markers ("" to skip)`)
	fs.StringVar(&o.BenchDir, "bench-dir", "bench", "benchmark sources whose doc comments describe the families")
	fs.StringVar(&o.Baseline, "baseline", registry.Baseline, "implementation every ratio is taken against")
	fs.StringVar(&o.ChartFormat, "format", "svg", "chart format: svg or png")
	fs.Float64Var(&o.Alpha, "alpha", 0.05, "significance level of the Mann-Whitney U test")
	fs.Float64Var(&o.Confidence, "confidence", 0.95, "confidence level of the intervals")
	fs.StringVar(&o.Repo, "repo", ".", `git work tree whose history marks a family stale when commits after its raw file's touch its code ("" to skip)`)
	fs.BoolVar(&o.Check, "check", false, "write nothing; exit 1 if any generated file is out of date")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (use --raw FILE)", fs.Args())
	}
	res, err := report.Generate(o)
	if err != nil {
		return err
	}
	if o.Check {
		for _, f := range res.Stale {
			fmt.Fprintln(stdout, "out of date:", f)
		}
		if len(res.Stale) > 0 {
			fmt.Fprintf(stdout, "report is out of date with %s: run make report\n", strings.Join(res.Raw, ", "))
			return &exitError{code: 1}
		}
		fmt.Fprintf(stdout, "report is up to date with %s\n", strings.Join(res.Raw, ", "))
		return nil
	}
	fmt.Fprintf(stdout, "report from %s: %d chart(s), %d file(s) changed\n", strings.Join(res.Raw, ", "), res.Charts, len(res.Stale))
	for _, f := range res.Files {
		fmt.Fprintln(stdout, "  wrote", f)
	}
	return nil
}

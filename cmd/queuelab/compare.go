package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/queuelab/queuelab/internal/lab/benchcmp"
	"github.com/queuelab/queuelab/internal/lab/registry"
)

const compareUsage = `usage:
  queuelab compare [flags] FILE            ratio of every implementation to the baseline, within one run
  queuelab compare [flags] OLD NEW...      every benchmark and implementation, new vs old
  queuelab compare --gate [flags] OLD NEW  exit 1 if an implementation got significantly worse than --tolerance

A FILE may be given as label=path. Differences with p >= alpha (or too few
samples to tell) print as "~".

flags:
`

func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, compareUsage); fs.PrintDefaults() }
	baseline := fs.String("baseline", registry.Baseline, "implementation every ratio is taken against (one-file mode)")
	alpha := fs.Float64("alpha", 0.05, "significance level of the Mann-Whitney U test")
	confidence := fs.Float64("confidence", 0.95, "confidence level of the intervals")
	filter := fs.String("filter", "", `benchproc filter, e.g. ".name:WorkQueue /keys:1024"`)
	gateMode := fs.Bool("gate", false, "regression gate: fail if NEW is significantly worse than OLD beyond --tolerance")
	tolerance := fs.String("tolerance", "5%", `accepted significant worsening in gate mode, "5%" or "0.05"`)
	impls := fs.String("impl", "all", "comma-separated implementations the gate checks")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *alpha <= 0 || *alpha >= 1 || *confidence <= 0 || *confidence >= 1 {
		return errors.New("--alpha and --confidence must be between 0 and 1")
	}
	tol, err := parseTolerance(*tolerance)
	if err != nil {
		return err
	}
	opts := benchcmp.Options{Alpha: *alpha, Confidence: *confidence, Filter: *filter}
	files := fs.Args()
	switch {
	case len(files) == 0:
		fs.Usage()
		return errors.New("no benchmark files given")
	case *gateMode && len(files) != 2:
		return fmt.Errorf("--gate needs exactly two files, OLD and NEW (got %d)", len(files))
	}
	data, err := benchcmp.Load(files...)
	if err != nil {
		return err
	}
	for _, w := range data.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	col := benchcmp.ByFile
	if len(files) == 1 {
		col = benchcmp.ByImpl
	}
	grid, err := data.Group(col, opts)
	if err != nil {
		return err
	}
	switch {
	case *gateMode:
		return runGate(grid, data.Files[0], data.Files[1], benchcmp.GateOptions{Tolerance: tol, Impls: splitImpls(*impls)}, stdout)
	case len(files) == 1:
		return grid.WriteRatios(stdout, *baseline)
	default:
		return grid.WriteChanges(stdout)
	}
}

func runGate(grid *benchcmp.Grid, old, new string, opts benchcmp.GateOptions, stdout io.Writer) error {
	res, err := grid.Gate(old, new, opts)
	if err != nil {
		return err
	}
	for _, m := range res.Missing {
		fmt.Fprintf(stdout, "missing from %s: %s\n", new, m)
	}
	for _, r := range res.Regressions {
		fmt.Fprintf(stdout, "REGRESSION %s\n", r)
	}
	fmt.Fprintf(stdout, "gate: %d regression(s) beyond %.3g%% in %d comparisons of %s against %s (%d not significant, %d skipped: direction unknown)\n",
		len(res.Regressions), 100*opts.Tolerance, res.Checked, new, old, res.Insignificant, res.Unknown)
	if res.Failed() {
		return &exitError{code: 1}
	}
	return nil
}

// parseTolerance accepts "5%" or a fraction "0.05".
func parseTolerance(s string) (float64, error) {
	s = strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(s, "%") {
		s, scale = strings.TrimSuffix(s, "%"), 0.01
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("--tolerance %q: want a non-negative percentage like 5%% or a fraction like 0.05", s)
	}
	return v * scale, nil
}

func splitImpls(spec string) []string {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "all" {
		return nil
	}
	var out []string
	for _, name := range strings.Split(spec, ",") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}

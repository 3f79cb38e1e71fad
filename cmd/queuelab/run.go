package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/controller"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/handlerfault"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/pipeline"
	"github.com/queuelab/queuelab/loadgen/report"
	"github.com/queuelab/queuelab/loadgen/scenario"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

var runCommand = command{
	name:    "run",
	summary: "run a load scenario over implementations and compare them with client-go",
	run:     runLoad,
}

// runOptions are `queuelab run`'s flags other than the scenario overrides.
type runOptions struct {
	scenario, pipelines      string
	styles                   string
	impl, store, fifo, workq string
	json, bench, quiet       bool
	count                    int
	profiles                 metrics.Profiles
	// overrides apply, in flag order, to the chosen scenario.
	overrides []func(*scenario.Scenario)
}

func runFlagSet(stderr io.Writer) (*flag.FlagSet, *runOptions) {
	fs := flag.NewFlagSet("queuelab run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &runOptions{}
	fs.StringVar(&o.scenario, "scenario", "default", "scenario, or a comma-separated list run one after another: "+strings.Join(scenario.Names(), ", "))
	fs.StringVar(&o.styles, "style", "", "controller scenarios: styles to run, clientgo, ctrlruntime or both comma-separated (default: both)")
	fs.StringVar(&o.pipelines, "pipeline", "", "pipelines to run: informer, workqueue, store, comma-separated, or all (default: the scenario's)")
	fs.StringVar(&o.impl, "impl", "", "implementation stacks, comma-separated: all, a uniform name (sharded), or combos <store>+<fifo>+<workq> (informer), <store>+<fifo> (store), <workq> (workqueue); controller scenarios: <informer>/<queue> or baseline (default: the scenario's stacks)")
	fs.StringVar(&o.store, "store", "", "store implementations (name, list or all); with --fifo/--workq instead of --impl, their product runs")
	fs.StringVar(&o.fifo, "fifo", "", "DeltaFIFO implementations (name, list or all)")
	fs.StringVar(&o.workq, "workq", "", "workqueue implementations (name, list or all)")
	fs.BoolVar(&o.json, "json", false, "print results as JSON")
	fs.BoolVar(&o.bench, "bench", false, "print results in Go benchmark format (for benchstat and queuelab compare)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar (it only shows when stderr is a terminal anyway)")
	fs.IntVar(&o.count, "count", 1, "rounds: every stack runs once per round, rounds interleaved (use 6 or more for benchstat); the table shows medians")
	fs.StringVar(&o.profiles.CPU, "cpuprofile", "", "write a CPU profile of the measured phase to `file` (one per run: .<pipeline>.<impl>, or .<style>.<stack> for a controller scenario, is inserted when several run)")
	fs.StringVar(&o.profiles.Mem, "memprofile", "", "write a heap profile at the end of the measured phase to `file`")
	fs.StringVar(&o.profiles.Mutex, "mutexprofile", "", "write a mutex contention profile to `file`")
	fs.StringVar(&o.profiles.Block, "blockprofile", "", "write a blocking profile to `file`")

	set := func(f func(*scenario.Scenario)) { o.overrides = append(o.overrides, f) }
	intFlag := func(name, usage string, apply func(*scenario.Scenario, int)) {
		overrideFlag(fs, set, name, usage, "not an integer", strconv.Atoi, apply)
	}
	floatFlag := func(name, usage string, apply func(*scenario.Scenario, float64)) {
		overrideFlag(fs, set, name, usage, "not a number", func(v string) (float64, error) { return strconv.ParseFloat(v, 64) }, apply)
	}
	durFlag := func(name, usage string, apply func(*scenario.Scenario, time.Duration)) {
		overrideFlag(fs, set, name, usage, "not a duration (e.g. 30s)", time.ParseDuration, apply)
	}
	overrideFlag(fs, set, "seed", "stream seed", "not an unsigned integer",
		func(v string) (uint64, error) { return strconv.ParseUint(v, 10, 64) },
		func(s *scenario.Scenario, n uint64) { s.Gen.Seed = n })
	intFlag("objects", "initial objects (and the popular key space)", func(s *scenario.Scenario, n int) { s.Gen.Objects = n })
	intFlag("namespaces", "namespaces", func(s *scenario.Scenario, n int) { s.Gen.Namespaces = n })
	intFlag("labels", "app label cardinality", func(s *scenario.Scenario, n int) { s.Gen.Labels = n })
	intFlag("payload", "payload bytes per object", func(s *scenario.Scenario, n int) { s.Gen.Payload = n })
	intFlag("events", "watch events after the initial list", func(s *scenario.Scenario, n int) { s.Gen.Events = n })
	// ratioFlag takes "a=<r>,b=<r>,...", one ratio per name, summing to 1.
	ratioFlag := func(name, usage string, names []string, apply func(*scenario.Scenario, []float64)) {
		fs.Func(name, usage+" (default: the scenario's)", func(v string) error {
			m, err := parseRatios(v, names...)
			if err != nil {
				return err
			}
			set(func(s *scenario.Scenario) { apply(s, m) })
			return nil
		})
	}
	ratioFlag("mix", "event mix add=<r>,update=<r>,delete=<r> summing to 1", []string{"add", "update", "delete"},
		func(s *scenario.Scenario, m []float64) { s.Gen.Add, s.Gen.Update, s.Gen.Delete = m[0], m[1], m[2] })
	floatFlag("zipf", "key popularity Zipf exponent > 1, 0 for uniform", func(s *scenario.Scenario, x float64) { s.Gen.Zipf = x })
	floatFlag("sim-rate", "simulated events/s that periods are expressed in", func(s *scenario.Scenario, x float64) { s.Gen.SimRate = x })
	durFlag("relist-every", "simulated relist period, 0 = none", func(s *scenario.Scenario, d time.Duration) { s.Gen.RelistEvery = d })
	floatFlag("missed", "fraction of deletes the watch misses (tombstones at the next relist)", func(s *scenario.Scenario, x float64) { s.Gen.Missed = x })
	durFlag("resync-every", "simulated resync period, 0 = none", func(s *scenario.Scenario, d time.Duration) { s.Gen.ResyncEvery = d })
	durFlag("disconnect-every", "simulated watch disconnect period, 0 = none", func(s *scenario.Scenario, d time.Duration) { s.Gen.DisconnectEvery = d })
	// A rate given replaces a half-load scenario's calibrated one.
	floatFlag("rate", "offered load in events/s, 0 = open loop", func(s *scenario.Scenario, x float64) {
		s.Opts.Schedule.Rate, s.HalfLoad = x, false
	})
	intFlag("burst", "events arriving back to back at the start of every --burst-every", func(s *scenario.Scenario, n int) { s.Opts.Schedule.Burst = n })
	durFlag("burst-every", "burst period", func(s *scenario.Scenario, d time.Duration) { s.Opts.Schedule.BurstEvery = d })
	intFlag("workers", "reconcile workers", func(s *scenario.Scenario, n int) { s.Opts.Workers = n })
	intFlag("producers", "workqueue pipeline producers", func(s *scenario.Scenario, n int) { s.Opts.Producers = n })
	intFlag("lists", "controller scenarios: lister Lists per reconcile", func(s *scenario.Scenario, n int) {
		if s.Controller != nil {
			s.Controller.Lists = n
		}
	})
	intFlag("readers", "store pipeline readers", func(s *scenario.Scenario, n int) { s.Opts.Readers = n })
	ratioFlag("read-mix", "store reads get=<r>,byindex=<r>,list=<r> summing to 1", []string{"get", "byindex", "list"},
		func(s *scenario.Scenario, m []float64) {
			s.Opts.ReadMix = pipeline.ReadMix{Get: m[0], ByIndex: m[1], List: m[2]}
		})
	durFlag("reconcile-cost", "CPU time each reconcile burns", func(s *scenario.Scenario, d time.Duration) { s.Opts.ReconcileCost = d })
	floatFlag("error-rate", "fraction of reconciles failing into AddRateLimited", func(s *scenario.Scenario, x float64) { s.Opts.ErrorRate = x })
	durFlag("stall", "fail a run that makes no progress for this long", func(s *scenario.Scenario, d time.Duration) { s.Opts.Stall = d })
	fs.Func("faults", "watch faults injected at positions drawn from --seed, close=<n>,gone=<n>,refused=<n>,internal=<n> (names left out: 0; informer and store pipelines) (default: the scenario's)", func(v string) error {
		n, err := parseCounts(v, "close", "gone", "refused", "internal")
		if err != nil {
			return err
		}
		set(func(s *scenario.Scenario) {
			s.Opts.Faults = watchsrc.Faults{Close: n[0], Gone: n[1], Refused: n[2], Internal: n[3]}
		})
		return nil
	})
	intFlag("handler-panics", "informer pipeline and controller scenarios: notifications the enqueuing handler panics on (skipped under the informer's panic policy)", func(s *scenario.Scenario, n int) { s.Opts.Handlers.Panics = n })
	intFlag("handler-blocks", "informer pipeline and controller scenarios: notifications a second handler blocks on for --handler-block", func(s *scenario.Scenario, n int) { s.Opts.Handlers.Blocks = n })
	durFlag("handler-block", "how long a blocking handler blocks", func(s *scenario.Scenario, d time.Duration) { s.Opts.Handlers.Block = d })
	durFlag("converge", "fail a run not drained this long after its stream ended, 0 = no bound", func(s *scenario.Scenario, d time.Duration) { s.Opts.Converge = d })
	return fs, o
}

// parseCounts parses "a=1,c=2": names at most once each, counts >= 0
// checked by the scenario's validation; names left out are 0.
func parseCounts(v string, names ...string) ([]int, error) {
	return parseNamed(v, names, "<count>,... each at most once", "not an integer", strconv.Atoi)
}

// parseNamed parses "name=value,..." into one value per name, in names'
// order: a name or a repeat not in names fails with "want <names>=want",
// a value parse rejects with "<name>: notA"; names left out stay zero.
func parseNamed[T any](v string, names []string, want, notA string, parse func(string) (T, error)) ([]T, error) {
	out := make([]T, len(names))
	seen := map[string]bool{}
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		i := slices.Index(names, k)
		if !ok || i < 0 || seen[k] {
			return nil, fmt.Errorf("want %s=%s, got %q", strings.Join(names, "|"), want, part)
		}
		x, err := parse(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", k, notA)
		}
		seen[k], out[i] = true, x
	}
	return out, nil
}

// overrideFlag defines flag name on fs: parse turns its value into a T,
// whose override apply is handed to set; a value parse rejects fails the
// flag with the message bad.
func overrideFlag[T any](fs *flag.FlagSet, set func(func(*scenario.Scenario)), name, usage, bad string,
	parse func(string) (T, error), apply func(*scenario.Scenario, T)) {
	fs.Func(name, usage+" (default: the scenario's)", func(v string) error {
		x, err := parse(v)
		if err != nil {
			return errors.New(bad)
		}
		set(func(s *scenario.Scenario) { apply(s, x) })
		return nil
	})
}

// parseRatios parses "a=0.1,b=0.9": every name once, values summing to 1
// is checked by the scenario's validation.
func parseRatios(v string, names ...string) ([]float64, error) {
	return parseNamed(v, names, "<ratio>,... each once", "not a number",
		func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
}

// registries are the families the run command resolves names in; tests
// substitute their own.
var registries = pipeline.Default

func runLoad(args []string, stdout, stderr io.Writer) error {
	fs, o := runFlagSet(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.json && o.bench {
		return errors.New("--json and --bench are exclusive")
	}
	if o.count < 1 {
		return fmt.Errorf("--count: want at least 1, got %d", o.count)
	}
	if o.count > 1 && o.profiles.Any() {
		return errors.New("--count: profiles are written per run; use --count 1 with --cpuprofile/--memprofile/--mutexprofile/--blockprofile")
	}
	names := strings.Split(o.scenario, ",")
	if len(names) > 1 && o.profiles.Any() {
		// Profile files are named by pipeline and stack, not scenario: a
		// second scenario would overwrite the first one's.
		return errors.New("--scenario: profiles are written per run; give one scenario with --cpuprofile/--memprofile/--mutexprofile/--blockprofile")
	}
	// Every scenario is planned before any runs, so a bad flag fails at
	// once rather than after minutes of load.
	var plans []*plan
	for _, name := range names {
		p, err := o.plan(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		plans = append(plans, p)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var (
		reps  []report.Scenario
		creps []controller.Scenario
	)
	for _, p := range plans {
		if p.ctrl != nil {
			crep, err := p.executeControllers(ctx, stderr, o)
			if err != nil {
				return err
			}
			creps = append(creps, crep)
			continue
		}
		rep, err := p.execute(ctx, stderr, o)
		if err != nil {
			return err
		}
		reps = append(reps, rep)
	}
	if err := render(stdout, o, reps, creps); err != nil {
		return err
	}
	return verdict(reps, creps, stderr)
}

// render writes pipeline and controller results in the chosen format.
func render(w io.Writer, o *runOptions, reps []report.Scenario, creps []controller.Scenario) error {
	switch {
	case o.json && len(creps) > 0:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"pipelines": reps, "controllers": creps})
	case o.json:
		return report.JSON(w, reps)
	case o.bench:
		if err := report.Bench(w, reps); err != nil {
			return err
		}
		return controller.Bench(w, creps)
	}
	if err := report.Table(w, reps); err != nil {
		return err
	}
	return controller.Table(w, creps)
}

// verdict fails the command (exit 1) if any run was incorrect, pipeline or
// whole controller, naming each offending run on stderr as
// scenario/pipeline-or-style/impl.
func verdict(reps []report.Scenario, creps []controller.Scenario, stderr io.Writer) error {
	var failed []string
	for _, rep := range reps {
		for _, r := range rep.Results {
			if !r.OK() {
				failed = append(failed, rep.Name+"/"+string(r.Pipeline)+"/"+r.Impl)
			}
		}
	}
	for _, rep := range creps {
		for _, r := range rep.Results {
			if !r.OK() {
				failed = append(failed, rep.Name+"/"+string(r.Style)+"/"+r.Impl)
			}
		}
	}
	for _, f := range failed {
		fmt.Fprintf(stderr, "queuelab run: %s FAILED its correctness checks\n", f)
	}
	if len(failed) > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// plan is a validated scenario with its stacks per pipeline.
type plan struct {
	sc     scenario.Scenario
	stacks map[pipeline.Kind][]pipeline.Stack
	kinds  []pipeline.Kind
	// ctrl holds a controller scenario's stacks per style, in style order.
	ctrl   map[controller.Style][]controller.Stack
	styles []controller.Style
}

func (o *runOptions) plan(name string) (*plan, error) {
	sc, err := scenario.Lookup(name)
	if err != nil {
		return nil, err
	}
	for _, f := range o.overrides {
		f(&sc)
	}
	if err := sc.Gen.Validate(); err != nil {
		return nil, err
	}
	if err := sc.Opts.Validate(); err != nil {
		return nil, err
	}
	if sc.Controller != nil {
		return o.planControllers(sc)
	}
	kinds := sc.Pipelines
	if o.pipelines != "" {
		if kinds, err = pipeline.ParseKinds(o.pipelines); err != nil {
			return nil, fmt.Errorf("--pipeline: %w", err)
		}
	}
	explicit := o.store != "" || o.fifo != "" || o.workq != ""
	if explicit && o.impl != "" {
		return nil, errors.New("--impl: give either --impl or --store/--fifo/--workq, not both")
	}
	reg := registries()
	p := &plan{sc: sc, stacks: map[pipeline.Kind][]pipeline.Stack{}, kinds: kinds}
	for _, k := range kinds {
		var stacks []pipeline.Stack
		if explicit {
			stacks, err = reg.Explicit(k, o.store, o.fifo, o.workq)
		} else {
			spec := o.impl
			if spec == "" {
				spec = sc.Stacks[k] // "" selects all
			}
			stacks, err = reg.Select(k, spec)
		}
		if err != nil {
			return nil, err
		}
		p.stacks[k] = stacks
	}
	return p, nil
}

// planControllers resolves a controller scenario's styles and stacks.
func (o *runOptions) planControllers(sc scenario.Scenario) (*plan, error) {
	if o.pipelines != "" || o.store != "" || o.fifo != "" || o.workq != "" {
		return nil, fmt.Errorf("--scenario %s: a controller scenario takes --style and --impl, not --pipeline/--store/--fifo/--workq", sc.Name)
	}
	if err := sc.Controller.Options(sc.Opts).Validate(); err != nil {
		return nil, err
	}
	p := &plan{sc: sc, ctrl: map[controller.Style][]controller.Stack{}}
	styles := controller.Styles
	if o.styles != "" {
		styles = nil
		for _, name := range strings.Split(o.styles, ",") {
			st := controller.Style(strings.TrimSpace(name))
			if !slices.Contains(controller.Styles, st) || slices.Contains(styles, st) {
				return nil, fmt.Errorf("--style: want clientgo and/or ctrlruntime once each, got %q", o.styles)
			}
			styles = append(styles, st)
		}
	}
	for _, st := range styles {
		spec := o.impl
		if spec == "" {
			spec = sc.Controller.Stacks[st]
		}
		stacks, err := controller.ParseStacks(st, spec)
		if err != nil {
			return nil, fmt.Errorf("--impl: %w", err)
		}
		p.ctrl[st] = stacks
	}
	p.styles = styles
	return p, nil
}

// generate builds the scenario's stream and its objects and announces them
// on stderr: the same for pipeline and controller scenarios, so a seed and
// digest read off one kind of run mean the same for the other.
func (p *plan) generate(stderr io.Writer) (*gen.Stream, *gen.Objects, error) {
	sc := p.sc
	stream, err := gen.Generate(sc.Gen)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "scenario %s: %d objects, %d events, seed %d, digest %s\n",
		sc.Name, sc.Gen.Objects, len(stream.Events), sc.Gen.Seed, stream.Digest)
	return stream, gen.NewObjects(stream), nil
}

// executeControllers runs a controller scenario's stacks, rounds
// interleaved like the pipelines'.
func (p *plan) executeControllers(ctx context.Context, stderr io.Writer, o *runOptions) (controller.Scenario, error) {
	sc := p.sc
	stream, objs, err := p.generate(stderr)
	if err != nil {
		return controller.Scenario{}, err
	}
	opts := sc.Controller.Options(sc.Opts)
	runs := countRuns(p.styles, p.ctrl)
	rep := controller.Scenario{Name: sc.Name, Seed: sc.Gen.Seed, Digest: stream.Digest, Stream: stream.Stats, Rate: opts.Schedule.Rate, Rounds: o.count}
	for range o.count {
		for _, st := range p.styles {
			for _, sk := range p.ctrl[st] {
				opts.Profiles = o.profilesFor(runs, string(st)+"."+sk.Name())
				res, err := controller.Run(ctx, st, sk, stream, objs, opts)
				if err != nil {
					return rep, err
				}
				faults := faultSummary(opts.Faults, opts.Handlers, opts.Converge, res.Source, res.Verdict, res.Converge)
				fmt.Fprintf(stderr, "controller %s %s: %.0f reconciles/s, p99 %v, synced in %v, %s%s\n", st, sk.Name(), res.ReconcilesPerSec,
					time.Duration(res.Latency.P99), res.Sync.Round(time.Millisecond), map[bool]string{true: "correct", false: "FAILED"}[res.OK()], faults)
				rep.Results = append(rep.Results, res)
			}
		}
	}
	return rep, nil
}

func (p *plan) execute(ctx context.Context, stderr io.Writer, o *runOptions) (report.Scenario, error) {
	sc := p.sc
	stream, objs, err := p.generate(stderr)
	if err != nil {
		return report.Scenario{}, err
	}
	if sc.HalfLoad {
		k := p.kinds[0]
		base, err := registries().Select(k, "clientgo")
		if err != nil {
			return report.Scenario{}, err
		}
		calib := sc.Opts
		calib.Schedule = gen.Schedule{}
		res, err := pipeline.Run(ctx, k, base[0], stream, objs, calib)
		if err != nil {
			return report.Scenario{}, err
		}
		if !res.OK() || res.EventsPerSec <= 0 {
			return report.Scenario{}, fmt.Errorf("half-load calibration run of %s failed", base[0].Name(k))
		}
		sc.Opts.Schedule.Rate = res.EventsPerSec / 2
		fmt.Fprintf(stderr, "calibration: %s sustains %.0f events/s open loop; offering %.0f events/s\n",
			base[0].Name(k), res.EventsPerSec, sc.Opts.Schedule.Rate)
	}
	rep := report.Scenario{Name: sc.Name, Seed: sc.Gen.Seed, Digest: stream.Digest, Stream: stream.Stats, Rate: sc.Opts.Schedule.Rate}
	runs := countRuns(p.kinds, p.stacks)
	showBar := !o.quiet && isTerminal(stderr)
	// Rounds interleave the stacks, so a slow drift of the machine (thermal,
	// a neighbour) spreads over every stack instead of landing on one.
	for round := 1; round <= o.count; round++ {
		for _, k := range p.kinds {
			for _, st := range p.stacks[k] {
				res, err := runOne(ctx, k, st, stream, objs, sc, o, runs, showBar, stderr)
				if err != nil {
					return rep, err
				}
				rep.Results = append(rep.Results, res)
			}
		}
	}
	rep.Rounds = o.count
	return rep, nil
}

// countRuns is how many stacks one round runs: those of every key.
func countRuns[K comparable, V any](keys []K, stacks map[K][]V) int {
	n := 0
	for _, k := range keys {
		n += len(stacks[k])
	}
	return n
}

// profilesFor names the profile files of one run: as given when it is the
// only run, with ".<run>" inserted when several would overwrite each other.
func (o *runOptions) profilesFor(runs int, run string) metrics.Profiles {
	if runs > 1 {
		return o.profiles.WithSuffix(run)
	}
	return o.profiles
}

// runOne runs one stack once, with a progress bar on a terminal and a
// one-line summary otherwise.
func runOne(ctx context.Context, k pipeline.Kind, st pipeline.Stack, stream *gen.Stream, objs *gen.Objects,
	sc scenario.Scenario, o *runOptions, runs int, showBar bool, stderr io.Writer) (*pipeline.Result, error) {
	opts := sc.Opts
	opts.Profiles = o.profilesFor(runs, string(k)+"."+st.Name(k))
	var bar *progressbar.ProgressBar
	if showBar {
		bar = progressbar.NewOptions64(int64(sc.Gen.Events),
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription(fmt.Sprintf("%s %s", k, st.Name(k))),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish())
		opts.Progress = func(n int64) { _ = bar.Set64(n) }
	}
	res, err := pipeline.Run(ctx, k, st, stream, objs, opts)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return nil, err
	}
	if !showBar {
		fmt.Fprintf(stderr, "%s %s: %.0f events/s, p99 %v, %s%s\n", k, st.Name(k), res.EventsPerSec,
			time.Duration(res.Latency.P99), map[bool]string{true: "correct", false: "FAILED"}[res.OK()],
			faultSummary(opts.Faults, opts.Handlers, opts.Converge, res.Source, res.Verdict, res.Converge))
	}
	return res, nil
}

// faultSummary is the ledger line of a pipeline or controller run with
// injected faults (watch faults f, handler faults h): what fired, what the
// Reflector did about it, what handlers skipped and how long the run took
// to drain after its stream ended (took; bound 0: none stated); empty
// without faults.
func faultSummary(f watchsrc.Faults, h handlerfault.Faults, bound time.Duration, src watchsrc.Stats, v account.Verdict, took time.Duration) string {
	if f.Total() == 0 && !h.Any() {
		return ""
	}
	s := sourceLine(src) + fmt.Sprintf("; %d notifications skipped", v.Skipped)
	if bound > 0 {
		s += fmt.Sprintf("; drained %v after the stream ended (bound %v)", took.Round(time.Millisecond), bound)
	}
	return s + violationLines(v.Violations)
}

// sourceLine is what the watch source injected and how the Reflector
// went through it.
func sourceLine(src watchsrc.Stats) string {
	return fmt.Sprintf("; faults: %d injected, %d lists, %d watches, %d disconnects, %d relists, %d refused, %d internal errors, %v backoff paused",
		src.Injected, src.Lists, src.Watches, src.Disconnects, src.Relists, src.Refused, src.InternalErrors, src.Paused.Round(time.Millisecond))
}

// violationLines renders a faulty run's violations under its line.
func violationLines(vs []account.Violation) string {
	if len(vs) == 0 {
		return ""
	}
	return "\n" + strings.TrimSuffix(account.Summary(vs), "\n")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

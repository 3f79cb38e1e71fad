package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/pipeline"
	"github.com/queuelab/queuelab/loadgen/report"
)

// tiny keeps a command-level run to a fraction of a second.
var tiny = []string{"--scenario", "smoke", "--objects", "300", "--events", "2000", "--readers", "1", "--quiet"}

func TestRunBenchOutputIsBenchfmt(t *testing.T) {
	var out, errOut bytes.Buffer
	code := dispatch(append([]string{"run", "--bench"}, tiny...), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	r := benchfmt.NewReader(strings.NewReader(out.String()), "run.txt")
	names := map[string]bool{}
	units := map[string]bool{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			names[string(rec.Name.Full())] = true
			for _, v := range rec.Values {
				units[v.OrigUnit+v.Unit] = true
			}
		case *benchfmt.SyntaxError:
			t.Fatalf("not benchfmt: %v", rec)
		}
	}
	require.NoError(t, r.Err())
	for _, p := range []string{"informer/impl=clientgo+clientgo+clientgo", "workqueue/impl=clientgo", "store/impl=clientgo+clientgo"} {
		assert.True(t, names["Load/scenario=smoke/pipeline="+p], "missing %s in %v", p, names)
	}
	for _, u := range []string{"events/s", "p99_ns", "peak-heap-B"} {
		assert.True(t, units[u], "unit %s renamed or missing: %v", u, units)
	}
	assert.Contains(t, out.String(), "Unit events/s better=higher")
	assert.Contains(t, out.String(), "Unit p99_ns better=lower")
}

func TestRunTableHasBaselineColumn(t *testing.T) {
	var out, errOut bytes.Buffer
	code := dispatch(append([]string{"run", "--pipeline", "workqueue"}, tiny...), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "pipeline=workqueue")
	assert.Contains(t, out.String(), "clientgo")
	assert.Contains(t, out.String(), "correct: clientgo ok") // the verdict, not just the row label
	assert.Contains(t, errOut.String(), "digest")
}

func TestRunBadFlagsNameTheFlag(t *testing.T) {
	cases := map[string][]string{
		"--objects":                    {"--objects", "0"},
		"--mix":                        {"--mix", "add=0.5,update=0.6,delete=0.1"},
		"--impl":                       {"--impl", "nosuch"},
		"--store":                      {"--store", "nosuch"},
		"--workers":                    {"--workers", "0"},
		"--scenario":                   {"--scenario", "smoke,nosuch"}, // planned before anything runs
		"--pipeline":                   {"--pipeline", "nosuch"},
		"--rate":                       {"--rate", "-1"},
		"for flag -zipf: not a number": {"--zipf", "x"}, // the usage text after it names every flag
		"--count":                      {"--count", "0"},
		"--faults: close":              {"--faults", "close=-1"},
		"for flag -faults":             {"--faults", "nosuch=1"},
		"--handler-panics":             {"--handler-panics", "-1"},
		"--handler-block":              {"--handler-blocks", "1", "--handler-block", "0"},
		"--converge":                   {"--converge", "-1s"},
	}
	for flag, args := range cases {
		var out, errOut bytes.Buffer
		code := dispatch(append([]string{"run"}, args...), &out, &errOut)
		assert.Equal(t, 2, code, flag)
		assert.Contains(t, errOut.String(), flag, "%s: %s", flag, errOut.String())
		assert.NotContains(t, errOut.String(), "digest", "%s: a run started before the flags were checked", flag)
	}
	var out, errOut bytes.Buffer
	dispatch([]string{"run", "--impl", "nosuch"}, &out, &errOut)
	assert.Contains(t, errOut.String(), "known: clientgo", "the registry's message lists valid names")
}

// TestRunRefusesProfilesOfManyRuns: profile files are named by pipeline and
// stack, so a second run (--count) or a second scenario would overwrite the
// first one's.
func TestRunRefusesProfilesOfManyRuns(t *testing.T) {
	for flag, value := range map[string]string{"--count": "2", "--scenario": "smoke,smoke"} {
		t.Run(flag, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := dispatch([]string{"run", flag, value, "--cpuprofile", t.TempDir() + "/cpu"}, &out, &errOut)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut.String(), flag+": profiles are written per run")
		})
	}
}

// TestRunControllerWritesProfiles: a controller scenario honours the
// profile flags as the pipelines do, one file per style and stack; it used
// to ignore them silently.
func TestRunControllerWritesProfiles(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := dispatch([]string{"run", "--scenario", "controller-restart", "--objects", "200", "--events", "200", "--namespaces", "2",
		"--style", "ctrlruntime", "--impl", "baseline,clientgo/pq-mutex", "--quiet",
		"--cpuprofile", dir + "/cpu.pprof", "--blockprofile", dir + "/block.pprof"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	for _, stack := range []string{"clientgo+priorityqueue", "clientgo+pq-mutex"} {
		for _, kind := range []string{"cpu", "block"} {
			assert.FileExists(t, dir+"/"+kind+".ctrlruntime."+stack+".pprof")
		}
	}
}

func TestVerdictFailsTheCommand(t *testing.T) {
	var errOut bytes.Buffer
	rep := report.Scenario{Name: "s", Results: []*pipeline.Result{
		{Pipeline: pipeline.Informer, Impl: "ok+ok+ok"},
		{Pipeline: pipeline.Informer, Impl: "bad+bad+bad", Verdict: account.Verdict{Violations: []account.Violation{{Check: account.NotReconciled, Count: 1, Keys: []string{"ns/pod-1"}}}}},
	}}
	err := verdict([]report.Scenario{rep}, nil, &errOut)
	var exit *exitError
	require.True(t, errors.As(err, &exit))
	assert.Equal(t, 1, exit.code)
	assert.Contains(t, errOut.String(), "bad+bad+bad FAILED")
	assert.NotContains(t, errOut.String(), "ok+ok+ok")
}

// TestRunRateReplacesHalfLoad: a half-load scenario calibrates its rate
// unless --rate gives one.
func TestRunRateReplacesHalfLoad(t *testing.T) {
	for _, args := range [][]string{nil, {"--rate", "1000"}} {
		fs, o := runFlagSet(&bytes.Buffer{})
		require.NoError(t, fs.Parse(args))
		p, err := o.plan("half-load")
		require.NoError(t, err)
		assert.Equal(t, args == nil, p.sc.HalfLoad, "%q", args)
		if args != nil {
			assert.Equal(t, 1000.0, p.sc.Opts.Schedule.Rate)
		}
	}
}

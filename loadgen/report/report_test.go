package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/perf/benchfmt"

	runmetrics "github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/pipeline"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func result(impl string, baseline bool, eventsPerSec float64) *pipeline.Result {
	return &pipeline.Result{Pipeline: pipeline.Informer, Impl: impl, Baseline: baseline,
		Throughput: runmetrics.Throughput{EventsPerSec: eventsPerSec, Duration: time.Second}}
}

// rounds is three interleaved rounds of a baseline and one other stack.
func rounds() Scenario {
	return Scenario{Name: "default", Digest: "0123456789abcdef0123", Rounds: 3, Results: []*pipeline.Result{
		result("mutex", false, 300), result("clientgo", true, 100),
		result("mutex", false, 500), result("clientgo", true, 200),
		result("mutex", false, 400), result("clientgo", true, 900),
	}}
}

func TestTableShowsMediansWithBaselineFirst(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Table(&out, []Scenario{rounds()}))
	text := out.String()
	assert.Contains(t, text, "medians of 3 interleaved rounds")
	head := text[strings.Index(text, "metric"):]
	assert.Less(t, strings.Index(head, "clientgo"), strings.Index(head, "mutex"), "baseline column first")
	// medians: clientgo 200, mutex 400 → 2.00×, which three rounds a side
	// cannot make significant.
	assert.Regexp(t, `events/s ↑\s+200/s \(n=3\)\s+~2\.00×`, text)
	assert.Contains(t, text, "correct: clientgo ok, mutex ok")
	assert.NotContains(t, text, "e+0")
}

func TestBenchWritesEverySample(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Bench(&out, []Scenario{rounds()}))
	r := benchfmt.NewReader(bytes.NewReader(out.Bytes()), "load.txt")
	samples := map[string]int{}
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			samples[string(res.Name)]++
		}
	}
	require.NoError(t, r.Err())
	assert.Equal(t, map[string]int{
		"Load/scenario=default/pipeline=informer/impl=clientgo": 3,
		"Load/scenario=default/pipeline=informer/impl=mutex":    3,
	}, samples)
}

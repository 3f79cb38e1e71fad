package crmetrics_test

import (
	"fmt"
	"slices"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"go.uber.org/goleak"
	"k8s.io/client-go/util/workqueue"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/queuelab/queuelab/queues/priorityq/crmetrics"
	"github.com/queuelab/queuelab/queues/priorityq/internal/crseries"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// priorityLabels returns the priority labels of name's depth series.
func priorityLabels(t *testing.T, name string) []string {
	var out []string
	crseries.Each(t, name, func(f *dto.MetricFamily, _ *dto.Metric, labels []*dto.LabelPair) {
		if f.GetName() != "workqueue_depth" {
			return
		}
		var prio string
		for _, l := range labels {
			if l.GetName() == "priority" {
				prio = l.GetValue()
			}
		}
		out = append(out, prio)
	})
	slices.Sort(out)
	return out
}

// TestPriorityCardinalityLimit: past MaxPriorities distinct priorities, a
// queue's depth is reported under PriorityOverflow, as controller-runtime
// does, so the series count stays bounded.
func TestPriorityCardinalityLimit(t *testing.T) {
	d := crmetrics.Provider{}.NewDepthMetricWithPriority("cardinality")
	for p := range crmetrics.MaxPriorities {
		d.Inc(p)
	}
	if n := len(priorityLabels(t, "cardinality")); n != crmetrics.MaxPriorities {
		t.Fatalf("%d depth series, want %d", n, crmetrics.MaxPriorities)
	}
	d.Inc(crmetrics.MaxPriorities) // one too many
	d.Dec(0)                       // a known priority now reports as overflow too
	got := priorityLabels(t, "cardinality")
	if !slices.Contains(got, crmetrics.PriorityOverflow) || len(got) != crmetrics.MaxPriorities+1 {
		t.Fatalf("labels = %v, want the %d priorities and %q", got, crmetrics.MaxPriorities, crmetrics.PriorityOverflow)
	}
}

// A client-go work queue publishing its metrics into controller-runtime's
// registry, next to controller-runtime's own queues.
func ExampleProvider() {
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{
		Name:            "example",
		MetricsProvider: crmetrics.Provider{},
	})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		panic(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == "example" && f.GetName() == "workqueue_adds_total" {
					fmt.Println(f.GetName(), m.GetCounter().GetValue())
				}
			}
		}
	}
	// Output: workqueue_adds_total 2
}

// TestPriorityDepthAllocatesNothing: once a priority has been seen, Inc and
// Dec cost no allocation (they also take no lock and no map look-up; see
// priorityDepth).
func TestPriorityDepthAllocatesNothing(t *testing.T) {
	d := crmetrics.Provider{}.NewDepthMetricWithPriority("alloc-free")
	for p := range 3 {
		d.Inc(p)
		d.Dec(p)
	}
	if n := testing.AllocsPerRun(1000, func() { d.Inc(2); d.Dec(2) }); n != 0 {
		t.Fatalf("Inc+Dec of a seen priority: %v allocations, want 0", n)
	}
}

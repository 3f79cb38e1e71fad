package priorityq_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/utils/ptr"

	"github.com/queuelab/queuelab/queues/priorityq"
	"github.com/queuelab/queuelab/queues/priorityq/internal/crseries"
)

// series returns the workqueue_* series of the queue called name in
// controller-runtime's registry, one line each: metric, labels other than
// the name, and the value (sample count for histograms; "set" for the
// unfinished-work gauges, whose values are clock readings).
func series(t *testing.T, name string) []string {
	var out []string
	crseries.Each(t, name, func(f *dto.MetricFamily, m *dto.Metric, labels []*dto.LabelPair) {
		if !strings.HasPrefix(f.GetName(), "workqueue_") {
			return
		}
		var ls []string
		for _, l := range labels {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		var v string
		switch {
		case f.GetType() == dto.MetricType_HISTOGRAM:
			v = fmt.Sprint("count=", m.GetHistogram().GetSampleCount())
		case strings.Contains(f.GetName(), "unfinished") || strings.Contains(f.GetName(), "longest"):
			v = "set"
		case m.GetCounter() != nil:
			v = fmt.Sprint(m.GetCounter().GetValue())
		default:
			v = fmt.Sprint(m.GetGauge().GetValue())
		}
		out = append(out, fmt.Sprintf("%s{%s} %s", f.GetName(), strings.Join(ls, ","), v))
	})
	slices.Sort(out)
	return out
}

// TestMetricsSeries drives every variant and controller-runtime's queue through the same
// operations under its own name and checks that each publishes exactly the
// workqueue_* series controller-runtime's queue publishes, values included:
// depth per priority (priority raises and lowerings included), adds,
// retries, and the latency and work-duration observation counts (a Done
// after ShutDown included).
func TestMetricsSeries(t *testing.T) {
	var want []string
	for _, v := range withControllerRuntime[string]() { // controller-runtime's first
		name := "series-" + v.name
		q, err := v.new(priorityq.Options[string]{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		q.AddWithOpts(priorityq.AddOpts{Priority: ptr.To(5)}, "a", "b")
		q.Add("c")
		q.AddWithOpts(priorityq.AddOpts{Priority: ptr.To(-100)}, "d")
		q.AddAfter("later", time.Hour) // a retry, never ready
		item, prio, _ := q.GetWithPriority()
		if prio != 5 {
			t.Fatalf("%s: Get = %s@%d, want a priority-5 item", v.name, item, prio)
		}
		q.Done(item)
		item, _, _ = q.GetWithPriority()
		q.Add(item) // re-added while processed
		q.Done(item)
		// controller-runtime buffers adds and applies them on its own
		// goroutine; Len applies them now, so ShutDown does not drop them.
		if n := q.Len(); n != 3 {
			t.Fatalf("%s: Len = %d, want 3", v.name, n)
		}
		// Priority changes: raising a ready item moves its depth to the
		// new priority; lowering one changes nothing; raising a waiting
		// item changes no depth until it becomes ready, at the raised
		// priority, even when the add that readies it asks for less.
		q.AddWithOpts(priorityq.AddOpts{Priority: ptr.To(10)}, "c")
		q.AddWithOpts(priorityq.AddOpts{Priority: ptr.To(-5)}, item)
		q.AddWithOpts(priorityq.AddOpts{Priority: ptr.To(7), After: time.Hour}, "later")
		q.AddWithOpts(priorityq.AddOpts{Priority: ptr.To(3)}, "later")
		if n := q.Len(); n != 4 {
			t.Fatalf("%s: Len = %d, want 4", v.name, n)
		}
		// Work that ends after ShutDown is still observed.
		held, _, _ := q.GetWithPriority()
		q.ShutDown()
		q.Done(held)
		got := series(t, name)
		if want == nil {
			want = got
			if len(want) == 0 {
				t.Fatal("controller-runtime's queue published no series")
			}
			t.Logf("controller-runtime's series:\n  %s", strings.Join(want, "\n  "))
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("impl=%s series differ from controller-runtime's:\n got  %s\n want %s", v.name,
				strings.Join(got, "\n      "), strings.Join(want, "\n      "))
		}
	}
}

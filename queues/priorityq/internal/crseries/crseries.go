// Package crseries reads back, for the tests of priorityq and crmetrics,
// what a queue published into controller-runtime's metrics registry: both
// check the series a queue made there, and read them one way.
package crseries

import (
	"testing"

	dto "github.com/prometheus/client_model/go"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Each calls visit with every series of controller-runtime's registry that
// belongs to the queue called name (its name or controller label is name),
// with the series' family and its labels but those two. A registry that
// fails to gather fails t.
func Each(t testing.TB, name string, visit func(f *dto.MetricFamily, m *dto.Metric, labels []*dto.LabelPair)) {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []*dto.LabelPair
			mine := false
			for _, l := range m.GetLabel() {
				if (l.GetName() == "name" || l.GetName() == "controller") && l.GetValue() == name {
					mine = true
				} else {
					labels = append(labels, l)
				}
			}
			if mine {
				visit(f, m, labels)
			}
		}
	}
}

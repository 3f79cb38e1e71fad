package workq

import "k8s.io/client-go/util/workqueue"

// must unwraps a constructor called with settings the test knows are valid.
func must[Q any](q Q, err error) Q {
	if err != nil {
		panic(err)
	}
	return q
}

// discard is a workqueue.MetricsProvider whose metrics do nothing, for
// tests of what the queue itself does with metrics on.
type discard struct{}

func (discard) Inc()            {}
func (discard) Dec()            {}
func (discard) Set(float64)     {}
func (discard) Observe(float64) {}

func (discard) NewDepthMetric(string) workqueue.GaugeMetric            { return discard{} }
func (discard) NewAddsMetric(string) workqueue.CounterMetric           { return discard{} }
func (discard) NewLatencyMetric(string) workqueue.HistogramMetric      { return discard{} }
func (discard) NewWorkDurationMetric(string) workqueue.HistogramMetric { return discard{} }
func (discard) NewRetriesMetric(string) workqueue.CounterMetric        { return discard{} }
func (discard) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return discard{}
}
func (discard) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return discard{}
}

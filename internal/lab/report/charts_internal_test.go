package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"gonum.org/v1/plot"
)

// TestPeerGroupsKeepUnmeasuredCombinationsWithTheBaseline: a load run's
// stacks of different sizes form one group each with their own all-client-go
// peer, while a stack whose peer was never measured (a controller run's
// three-part lab stack next to the two-part stock stack) joins the first
// group instead of charting alone without a baseline.
func TestPeerGroupsKeepUnmeasuredCombinationsWithTheBaseline(t *testing.T) {
	load := &Family{Baseline: "clientgo", Impls: []string{"clientgo", "ring", "clientgo+clientgo+clientgo", "mutex+clientgo+clientgo"}}
	assert.Equal(t, [][]string{{"clientgo", "ring"}, {"clientgo+clientgo+clientgo", "mutex+clientgo+clientgo"}}, peerGroups(load))
	ctrl := &Family{Baseline: "clientgo", Impls: []string{"clientgo+clientgo", "informer+pq-lockfree", "lockfree+mutex+ring"}}
	assert.Equal(t, [][]string{{"clientgo+clientgo", "informer+pq-lockfree", "lockfree+mutex+ring"}}, peerGroups(ctrl))
}

// TestLogAxisWithoutADecadeIsLabelled: a log axis from 12 ms to 90 ms holds
// no power of ten, so its minor ticks carry the numbers.
func TestLogAxisWithoutADecadeIsLabelled(t *testing.T) {
	var labels []string
	for _, tk := range (humanTicks{plot.LogTicks{Prec: -1}, "ns"}).Ticks(12e6, 90e6) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if len(labels) < 2 {
		t.Fatalf("labels %q: want the minor ticks labelled", labels)
	}
}

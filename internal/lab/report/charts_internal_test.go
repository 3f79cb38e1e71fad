package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
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

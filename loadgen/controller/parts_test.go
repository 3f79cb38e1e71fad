package controller

import (
	"slices"
	"testing"

	"github.com/queuelab/queuelab/internal/lab/registry"
)

// TestQueuesListEachGetYield requires every lab priority queue under every
// Get-yield policy, by a name --impl accepts, built into a working queue:
// what a scenario needs to measure the policies side by side.
func TestQueuesListEachGetYield(t *testing.T) {
	names := queueNames()
	for _, e := range registry.PriorityQueues[string]() {
		if e.Name == registry.PriorityBaseline {
			continue
		}
		for _, y := range getYields {
			qn := "pq-" + e.Name + y.suffix
			if !slices.Contains(names, qn) {
				t.Errorf("queue %s not listed (known: %v)", qn, names)
				continue
			}
			spec := "informer-lockfree/" + qn
			stacks, err := ParseStacks(CtrlRuntime, spec)
			if err != nil || len(stacks) != 1 || stacks[0].Queue != qn {
				t.Errorf("ParseStacks(%q) = %v, %v", spec, stacks, err)
			}
			qe, err := lookupQueue[string](qn)
			if err != nil {
				t.Fatal(err)
			}
			q := qe.New("", newLimiter[string]())
			q.Add("a")
			if item, shutdown := q.Get(); item != "a" || shutdown {
				t.Errorf("%s: Get = %q, %v; want a, false", qn, item, shutdown)
			}
			q.Done("a")
			q.ShutDown()
		}
	}
}

package inorder_test

import (
	"strconv"
	"testing"

	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/inorder/inordertest"
)

// diffSeeds is how many seeded operation sequences each implementation
// replays against client-go's RealFIFO.
const diffSeeds = 40

func TestDiffInOrderFIFO(t *testing.T) {
	for _, e := range inorder.Impls {
		t.Run("impl="+e.Name, func(t *testing.T) {
			for seed := range uint64(diffSeeds) {
				t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
					inordertest.DiffInOrderFIFO(t, newQueue(e), inordertest.Ops(seed, 1200), inordertest.OptionsFor(e.Guarantees)...)
				})
			}
		})
	}
}

package guarantee_test

import (
	"fmt"

	"github.com/queuelab/queuelab/guarantee"
)

// A suite's Guarantees name the order an implementation keeps across
// items; the suite skips, with this name in the reason, the properties a
// weaker order cannot keep.
func ExampleOrder() {
	for _, o := range []guarantee.Order{guarantee.OrderFIFO, guarantee.OrderPerShard} {
		fmt.Println(o)
	}
	// Output:
	// fifo
	// per-shard
}

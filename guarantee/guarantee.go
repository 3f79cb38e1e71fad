// Package guarantee holds the vocabulary the conformance suites share to
// say what an implementation promises beyond the upstream contract it
// drop-ins for. Each suite (workqtest, fifotest, deltafifotest,
// inordertest, storetest, informertest, priorityqtest) declares its own
// Guarantees struct; what several families declare alike — the hand-out
// order across different items — is defined once here, so a suite's
// verdicts and a table of results use the same words.
package guarantee

import "fmt"

// Order is the hand-out order a queue implementation guarantees across
// different items. Order within one item (or key) is never relaxed.
type Order int

const (
	// OrderFIFO: items come out in the order they were first enqueued,
	// queue-wide, as client-go does.
	OrderFIFO Order = iota
	// OrderPerShard: FIFO among items of the same shard only; items of
	// different shards may overtake each other. [relaxed]
	OrderPerShard
)

// String names the order for tables and skip messages.
func (o Order) String() string {
	switch o {
	case OrderFIFO:
		return "fifo"
	case OrderPerShard:
		return "per-shard"
	default:
		return fmt.Sprintf("Order(%d)", int(o))
	}
}

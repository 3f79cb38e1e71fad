// Package priorityqtest is the conformance suite of the priority work
// queues: controller-runtime's priorityqueue.PriorityQueue contract, checked
// on any implementation — controller-runtime's own included — plus a
// differential check against controller-runtime's queue driven by operation
// bytes, a hammer with exact accounting and the Get-yield check.
//
// What is checked is decided only by the Guarantees an implementation
// declares: Run, Diff and GetYields skip, with the reason, exactly the
// properties it does not promise.
package priorityqtest

import (
	"testing"
	"testing/synctest"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/priorityq"
)

// Guarantees declares what a priority queue promises beyond the
// PriorityQueue contract every queue keeps (dedup, max priority, min delay,
// priority order, re-queue after Done, never two workers on one item).
type Guarantees struct {
	// Order is the hand-out order among ready items of equal priority.
	Order guarantee.Order
	// KeepsPosition: an item added while processed, and a delayed item made
	// ready by an add without delay, keep the place of their earlier add
	// among their priority, as controller-runtime orders them; without it
	// they go to the tail.
	KeepsPosition bool
	// DrainOnShutdown: the queue honours Options.DrainOnShutdown (after
	// ShutDown, Get keeps handing out the ready items, and
	// ShutDownWithDrain waits until they are handed out and Done, as
	// client-go's workqueue does). Without the option every queue keeps
	// controller-runtime's contract: Get reports shutdown at once.
	// controller-runtime's queue has no such mode and refuses the option.
	// [ext]
	DrainOnShutdown bool
	// GetYield: the queue honours Options.GetYield, so that GetYieldOn
	// makes every Get a scheduling point (see GetYields).
	// controller-runtime's queue has no such policy and refuses the option.
	// [ext]
	GetYield bool
}

// NewQueue constructs a fresh, empty queue with o for one property; an
// error fails the property. It is called on the property's goroutine,
// inside a synctest bubble for the properties about time, so the queue's
// timers and goroutines live there.
type NewQueue func(o priorityq.Options[string]) (priorityq.PriorityQueue[string], error)

// Run checks the priority-queue contract of SPEC.md on queues made by
// newQueue, one subtest per property, each on a fresh queue under a
// deadlock watchdog; time is virtual (testing/synctest) wherever delays or
// blocking matter. The properties g does not declare are skipped. The
// differential check against controller-runtime is Diff, and the
// scheduling check GetYields, which must not run in parallel.
func Run(t *testing.T, newQueue NewQueue, g Guarantees) {
	fifo := suite.Unless(g.Order == guarantee.OrderFIFO, "[relaxed] FIFO within a priority per shard only")
	place := suite.Unless(g.KeepsPosition, "[relaxed] re-queued and un-delayed items go to the tail of their priority")
	drains := suite.Unless(g.DrainOnShutdown, "[ext] no DrainOnShutdown: controller-runtime's Get reports shutdown at once and its ShutDownWithDrain does not wait")
	b := func(run func(*testing.T, NewQueue)) func(*testing.T) {
		return func(t *testing.T) { synctest.Test(t, func(t *testing.T) { run(t, newQueue) }) }
	}
	suite.Run(t, 0, []suite.Property{
		{Name: "dedup-keeps-the-highest-priority", Run: b(dedupMaxPriority)},
		{Name: "higher-priority-first", Run: b(priorityOrder)},
		{Name: "priorities-are-full-ints", Run: b(fullIntPriorities)},
		{Name: "fifo-within-a-priority", Skip: fifo, Run: b(fifoWithinPriority)},
		{Name: "raised-item-goes-behind-its-new-priority", Skip: fifo, Run: b(raisedGoesBehind)},
		{Name: "add-while-processing-hands-out-after-done", Run: b(addWhileProcessing)},
		{Name: "add-while-processing-keeps-its-place", Skip: fifo + place, Run: b(addWhileProcessingKeepsPlace)},
		{Name: "done-of-an-idle-item-is-ignored", Run: b(doneOfIdle)},
		{Name: "get-blocks-until-add", Run: b(getBlocksUntilAdd)},
		{Name: "add-after-waits-for-its-delay", Run: b(addAfterWaits)},
		{Name: "earliest-delay-wins", Run: b(earliestDelayWins)},
		{Name: "add-without-delay-readies-a-waiting-item", Run: b(addReadiesWaiting)},
		{Name: "delayed-add-of-a-ready-item-keeps-it-ready", Run: b(delayedAddOfReady)},
		{Name: "expired-items-go-by-priority-then-ready-time", Skip: fifo, Run: b(expiredOrder)},
		{Name: "rate-limited-add-uses-the-limiter", Run: b(rateLimited)},
		{Name: "len-counts-ready-items", Run: b(lenCountsReady)},
		{Name: "add-after-shutdown-is-ignored", Run: b(addAfterShutdown)},
		{Name: "shutdown-wakes-blocked-gets", Run: b(shutdownWakesGets)},
		{Name: "get-reports-shutdown-at-once-with-items-ready", Run: b(shutdownWithReadyItems)},
		{Name: "get-reports-shutdown-at-once-with-a-re-added-item-processing", Run: b(shutdownWithItemReAdded)},
		{Name: "shutdown-with-drain-does-not-wait", Run: b(shutdownWithDrainDoesNotWait)},
		{Name: "drain-on-shutdown-hands-out-ready-items", Skip: drains, Run: b(getAfterShutdown)},
		{Name: "drain-on-shutdown-skips-re-added-items-until-done", Skip: drains, Run: b(drainSkipsReAddedItems)},
		{Name: "drain-on-shutdown-waits-for-done", Skip: drains, Run: b(drainWaitsForDone)},
		{Name: "shutdown-ends-a-drain-early", Skip: drains, Run: b(shutdownEndsDrain)},
		{Name: "hammer", Run: func(t *testing.T) { Hammer(t, newQueue, 4, 8, 64, 2000) }},
	})
}

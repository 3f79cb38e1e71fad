// Package priorityqtest is the conformance suite of the priority work
// queues: controller-runtime's priorityqueue.PriorityQueue contract, checked
// on any implementation — controller-runtime's own included — plus a seeded
// differential check against controller-runtime's queue and a hammer with
// exact accounting.
package priorityqtest

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/priorityq"
)

// NewQueue constructs a fresh, empty queue with o for one property. It is
// called on the property's goroutine, inside a synctest bubble for the
// properties about time, so the queue's timers and goroutines live there.
type NewQueue func(t *testing.T, o priorityq.Options[string]) priorityq.PriorityQueue[string]

// Option adjusts a suite run to the implementation.
type Option func(*config)

type config struct {
	g       priorityq.Guarantees
	timeout time.Duration
	seeds   int
}

// WithGuarantees declares what the implementation promises beyond the
// contract every queue keeps; the properties it does not promise are
// skipped. Without it the suite assumes controller-runtime's (FIFO within a
// priority, earlier places kept, no DrainOnShutdown option).
func WithGuarantees(g priorityq.Guarantees) Option { return func(c *config) { c.g = g } }

// WithTimeout sets each property's deadlock watchdog.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithDiffSeeds sets how many seeds the differential property runs (default 20).
func WithDiffSeeds(n int) Option { return func(c *config) { c.seeds = n } }

func newConfig(opts []Option) config {
	c := config{
		g:       priorityq.Guarantees{Order: guarantee.OrderFIFO, KeepsPosition: true},
		timeout: watchdog.DefaultTimeout,
		seeds:   20,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// RunPriorityQueue checks the priority-queue contract of SPEC.md on queues
// made by newQueue, one subtest per property, each on a fresh queue under a
// deadlock watchdog; time is virtual (testing/synctest) wherever delays or
// blocking matter.
func RunPriorityQueue(t *testing.T, newQueue NewQueue, opts ...Option) {
	c := newConfig(opts)
	fifo := suite.Unless(c.g.Order == guarantee.OrderFIFO, "[relaxed] FIFO within a priority per shard only")
	place := suite.Unless(c.g.KeepsPosition, "[relaxed] re-queued and un-delayed items go to the tail of their priority")
	drains := suite.Unless(c.g.DrainOnShutdown, "[ext] no DrainOnShutdown: controller-runtime's Get reports shutdown at once and its ShutDownWithDrain does not wait")
	b := func(run func(*testing.T, NewQueue)) func(*testing.T) {
		return func(t *testing.T) { synctest.Test(t, func(t *testing.T) { run(t, newQueue) }) }
	}
	suite.Run(t, c.timeout, []suite.Property{
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
		{Name: "differential", Skip: suite.Unless(c.g.Order == guarantee.OrderFIFO && c.g.KeepsPosition,
			"[relaxed] order differs from controller-runtime's (run DiffPriorityQueue on an exact configuration)"),
			Run: func(t *testing.T) {
				for seed := range uint64(c.seeds) {
					DiffPriorityQueue(t, newQueue, seed, 300)
				}
			}},
	})
}

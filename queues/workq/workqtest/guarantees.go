package workqtest

import "github.com/queuelab/queuelab/guarantee"

// Guarantees declares what a work-queue implementation promises beyond the
// workqueue.TypedInterface contract every implementation keeps. The suites
// decide what to check from these fields alone: a property that needs a
// promise the implementation does not declare is skipped, with the reason
// in the skip message, so a relaxed implementation is held to everything
// else and a declaration that is too strong fails.
type Guarantees struct {
	// Order is the hand-out order across different items.
	Order guarantee.Order
	// DrainsQueued: ShutDownWithDrain waits until nothing is queued as well
	// as nothing processing, as client-go documents. client-go's code
	// returns once nothing is processing, even with items still queued
	// (kubernetes/kubernetes#141079), so its entry, and any drop-in that
	// keeps its behaviour, leaves this false: the suites then skip the
	// drain properties that need it and instead check that the drain
	// returns as client-go's does (drain-returns-when-nothing-processing).
	DrainsQueued bool
}

// Why properties are skipped, by the guarantee they need.
const (
	relaxedOrder = "[relaxed] the implementation declares no queue-wide hand-out order (Guarantees.Order)"
	relaxedDrain = "[relaxed] ShutDownWithDrain may return while items are still queued (Guarantees.DrainsQueued " +
		"false; client-go's bug kubernetes/kubernetes#141079)"
	drainsQueued = "[ext] ShutDownWithDrain also waits for queued items (Guarantees.DrainsQueued), so client-go's " +
		"early return is not expected"
)

// Package inorder provides drop-in replacements for client-go's RealFIFO,
// the queue every v0.37 SharedIndexInformer pops from.
//
// An in-order FIFO keeps every event the Reflector hands it, in arrival
// order, with no per-key compression (a DeltaFIFO merges a key's deltas; this
// queue does not). Two modes, as client-go has them:
//
//   - Atomic (the zero Options, how informers build RealFIFO): Replace
//     enqueues one cache.ReplacedAll event holding the whole list and its
//     resource version, Resync one cache.SyncAll event, and Bookmark one
//     cache.Bookmark event. Nothing the queue does depends on the consumer's
//     store, so the consumer may process with the queue unlocked: writers are
//     never blocked by processing.
//   - Per-object (Options.KnownObjects set, client-go's non-atomic mode):
//     Replace emits a Replaced event per listed object after a Deleted
//     tombstone (cache.DeletedFinalStateUnknown) for every key queued or
//     known that the list lacks; Resync emits Sync for known keys with
//     nothing queued. Those decisions read the consumer's store, so Pop
//     processes under the queue's lock.
//
// HasSynced turns true once the events of the first Replace have been
// popped and processed, or at the first Add, Update or Delete that came
// before any Replace. PopBatch hands a run of consecutive events with
// distinct keys to one call (client-go's processDeltasInBatch writes them
// in one transaction); a ReplacedAll, SyncAll or Bookmark event travels
// alone. The informer's consumer (package informer, above this one) applies
// what a Pop hands out to its store and handlers.
//
// # Choosing a variant
//
// Every variant is built from one Options value, whose zero value is the
// queue informers build; a mode or setting a variant does not implement is
// an error wrapping ErrUnsupportedMode, never a queue that pretends:
//
//   - NewMutex: one mutex and a ring buffer; both modes. Keys are computed
//     in a stack buffer (no allocation per event) and PopBatch's
//     distinct-key rule uses a reused hash set instead of a set of key
//     strings. The one to use in per-object mode.
//   - NewLockFree: producers push into the lab's lock-free MPMC queue of rings
//     (internal/mpmc) and never take a lock; one consumer at a time takes
//     events under a consumer-side mutex that writers never touch. Atomic
//     mode only: a per-object Replace must read the queued events, which a
//     lock-free queue cannot scan.
//
// There is no sharded variant. Events of different keys must come out in the
// order they went in (a Delete of a before an Add of b is seen in that
// order, and a ReplacedAll is a barrier across every key), so a queue split
// by key would need a global sequence number and a merge of the shards'
// heads on every Pop: one shared counter taken by every writer, which is the
// contention sharding exists to avoid, plus a merge the single queue does not
// pay.
//
// # Differences from client-go
//
// All on the side of keeping events: client-go keeps its lock while
// processing once 2000 events are queued (throttling the Reflector); these
// queues never block writers for the consumer. Objects a
// consumer was handed stay reachable until the queue hands out a few hundred
// more events (they share the hand-out buffer), instead of being dropped at
// once.
//
// The behaviour is pinned down by inordertest.Run and inordertest.Diff (a
// differential check against client-go's RealFIFO in both modes), which the
// lab runs over every variant and over client-go's RealFIFO itself.
package inorder

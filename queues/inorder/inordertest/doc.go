// Package inordertest is the conformance suite of the in-order FIFO family
// (queues/inorder): client-go v0.37's RealFIFO contract, in both its modes,
// which client-go's RealFIFO passes. Like testing/slogtest, it is for
// anyone writing such a queue: call Run from a test with a constructor that
// builds a fresh queue from inorder.Options and the Guarantees (modes) the
// implementation declares, and Diff with SeedOps of a few seeds (and from a
// fuzz target with its input). Each property is a subtest named for the
// promise it checks, run on fresh queues under a deadlock watchdog; the
// properties of a mode the implementation does not declare are skipped
// with "[relaxed]".
//
// The contract an in-order FIFO keeps:
//
//   - Every event (Add, Update, Delete, a tombstone's Delete) comes out
//     once, in arrival order, with no per-key compression. A write the key
//     function rejects queues nothing; Close wakes a blocked Pop after what
//     is queued has been handed out.
//   - Atomic mode (the zero Options): Replace, Resync and Bookmark are one
//     event each (ReplacedAll, SyncAll, Bookmark; Options.NoBookmarks drops
//     the last); writers are never blocked by a process function unless
//     Options.LockWhileProcessing asks for it; a Transformer runs once on
//     every object entering the queue. HasSynced turns true once the first
//     Replace has been processed, or at a write before any Replace.
//   - PopBatch hands a run of consecutive events with distinct keys to one
//     call, at most the batch size; a ReplacedAll, SyncAll or Bookmark
//     travels alone.
//   - Per-object mode (Options.KnownObjects): Replace emits a tombstone for
//     every queued or known key the list lacks, then a Replaced event per
//     listed object, and changes nothing on a key error; Resync emits Sync
//     for known keys with nothing queued; HasSynced waits for the relist's
//     events, and a batch stops at the end of the initial list.
//   - Under concurrent producers, every event is popped exactly once (the
//     hammer), and a single-threaded sequence of operations gives client-go's
//     results in each declared mode (Diff: any operation bytes, the trace
//     printed on failure and the bytes kept for replay).
package inordertest

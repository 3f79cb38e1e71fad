// Package deltafifotest is the conformance suite of the DeltaFIFO family:
// client-go's cache.Queue as cache.DeltaFIFO implements it, where each key
// accumulates the list of changes (Deltas) an informer's consumer applies.
// Like testing/slogtest, it is for anyone writing such a queue: call
// Run from a test with a constructor for fresh queues and the Guarantees
// the implementation declares, and Diff with SeedOps of a few seeds (and
// from a fuzz target with its input). Each property is a
// subtest named for the promise it checks, run on fresh queues under a
// deadlock watchdog (inside testing/synctest where it asserts that a Pop
// is blocked). A property that needs a guarantee the implementation does
// not declare is skipped: "[relaxed]" for a weaker order, "[ext]" for the
// behaviours client-go dropped and for PopBatch. client-go's DeltaFIFO
// passes every property it is held to.
//
// The contract a DeltaFIFO keeps:
//
//   - Add, Update and Delete append an Added, Updated or Deleted delta to
//     the key's Deltas; a popped key hands all its deltas at once, in
//     order. A Delete of a key neither queued nor in KnownObjects is
//     ignored. Two Deletes in a row keep one: the one with the real
//     object over a tombstone, the newer of two tombstones.
//   - Replace queues a Replaced delta (Sync without EmitDeltaTypeReplaced)
//     for every listed object, and a Deleted delta holding a
//     cache.DeletedFinalStateUnknown for every queued or known key the
//     list no longer has, carrying the last object the queue or
//     KnownObjects knew. Resync queues a Sync delta for every known key
//     that has nothing queued.
//   - The key function sees through Deltas and tombstones; a transformer
//     runs once on every object entering the queue, never on tombstones or
//     on Sync deltas, and a transformer error fails the write.
//   - Pop, order, key errors, HasSynced, isInInitialList and Close follow
//     the FIFO rules (see queues/fifo/fifotest): synced only after the last
//     key of the first Replace has been popped and processed.
//   - Under concurrent writers and a consumer, and with Replace racing
//     Pops, the consumer's store ends equal to the writers' last word, and
//     the queue drives a real client-go controller (cache.New: Reflector,
//     list and watch) to the source's state, through Pop and through
//     PopBatch. A single-threaded sequence of operations gives client-go's
//     results (Diff: any operation bytes, the trace printed on failure and
//     the bytes kept for replay; seeded runs and a fuzz target drive it).
//   - PopBatch (Guarantees.Batch) hands out exactly what the equivalent
//     Pops would, at most 1000 deltas a batch, and reports synced only
//     after the process function of the last initial batch returns.
//   - [ext] Get, List and ListKeys read what is queued; AddIfNotPresent
//     puts Deltas back only for a key with nothing queued; a process
//     function returning ErrRequeue puts the Deltas back and Pop returns
//     the error it wraps; a Replace that fails on a key error changes
//     nothing.
package deltafifotest

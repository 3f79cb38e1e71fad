// Package keyq is the machinery the FIFO and DeltaFIFO families share: an
// ordered set of keys, each with an accumulator (the latest object for a
// FIFO, the pending Deltas for a DeltaFIFO), plus the HasSynced bookkeeping
// and the Close/wake-up protocol of client-go's cache.Queue.
//
// A Set is split into shards, each guarded by its own mutex and holding a
// key→slot index, the slots and (in per-shard mode) a deque of queued slots.
// Three layouts come out of two settings:
//
//   - one shard, per-shard order: a single mutex, global FIFO order — the
//     shape of client-go's queues, without their per-operation allocations;
//   - N shards, per-shard order: writers of different shards never meet on a
//     lock; Pop serves the shards from a random start, so order holds per
//     shard only;
//   - N shards, ring order: the slots stay sharded, but queued keys are
//     handed from writers to Pop through one lock-free MPMC queue, so order
//     is global FIFO again and Pop never scans.
//
// Callers (the families) express their semantics as callbacks that run
// under the lock of the shard owning the key: Write for single-key updates,
// Pop and PopBatch for consumption (the process function runs inside, as in
// client-go, so a consumer can update its knownObjects consistently), and
// Bulk, which holds every shard lock, for Replace, Resync and listings.
package keyq

// Package deltafifo provides drop-in replacements for client-go's
// DeltaFIFO (cache.Queue popping cache.Deltas), the queue between a
// Reflector and an informer's store, where each key accumulates the changes
// its consumer applies.
//
// # Choosing a variant
//
// Every variant is built from one Options value: the cache.DeltaFIFOOptions
// you would give cache.NewDeltaFIFOWithOptions, embedded as they are so a
// caller switching from client-go changes one constructor call, plus the
// layout settings (Shards, RingSize). The zero value is valid; a setting a
// variant cannot honour is an error, never a queue that misbehaves later.
// Three layouts share one implementation of the DeltaFIFO rules
// (queues/internal/keyq underneath):
//
//   - NewMutex: one lock, global FIFO order — client-go's shape. The safe
//     default.
//   - NewSharded: keys hashed over independently locked shards, FIFO order
//     per shard (guarantee.OrderPerShard), for many writers.
//   - NewRing: sharded key state, global FIFO order through a lock-free
//     queue of rings.
//
// All three are cache.QueueWithBatch (PopBatch), cache.TransformingStore and
// cache.DoneChecker, honour every behaviour-affecting field of
// cache.DeltaFIFOOptions (KeyFunction, KnownObjects, EmitDeltaTypeReplaced,
// Transformer; Name and Logger too), and keep the seed behaviours client-go
// dropped: AddIfNotPresent, ErrRequeue, Get/GetByKey/List/ListKeys, and
// Replace/Resync that fail atomically on a key error.
//
// # Differences from client-go
//
// Deliberate, and all invisible to client-go's controller:
//
//   - A failed Add, Update or Delete (key or Transformer error) changes
//     nothing; client-go marks the queue populated first, so a bad first
//     write syncs it.
//   - HasSynced waits for the very entries the first Replace queued
//     (counted per key), rather than for that many pops: the same under
//     FIFO order, and right under per-shard order.
//   - Where client-go allocates per operation, these reuse: a key's string
//     is interned in its slot (namespace/name keys are built in a stack
//     buffer and looked up without allocating), first deltas are carved
//     from shared blocks, and a relist takes its tombstones' keys from
//     KnownObjects. A steady-state Add+Pop allocates one 24-byte box (the
//     Deltas returned as interface{}). A popped key keeps its slot, so its
//     next event finds the key interned; slots nobody touched for two
//     sweeps (a shard sweeps every max(1024, keys its last sweep kept,
//     slots/2) pops; see keyq) are let go, and a deleted object's slot
//     goes at once.
//
// The behaviour is pinned down by deltafifotest.Run and deltafifotest.Diff
// (a differential check against client-go's DeltaFIFO), which the lab runs
// over every variant and over client-go's DeltaFIFO itself.
package deltafifo

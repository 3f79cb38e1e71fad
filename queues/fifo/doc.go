// Package fifo provides drop-in replacements for client-go's cache.FIFO: a
// cache.Queue holding the newest object of each key, popped in the order
// the keys were first queued.
//
// # Choosing a variant
//
// Every variant is built from one Options value (the zero value is valid:
// keys from cache.MetaNamespaceKeyFunc, default layout) and returns an
// error for settings it cannot honour, never a queue that misbehaves later:
//
//   - NewMutex: one lock, global FIFO order — client-go's shape, with a
//     ring-buffer queue and interned keys, so a steady-state Add and Pop of
//     a known key allocate nothing for the key. The safe default.
//   - NewSharded: keys hashed over independently locked shards
//     (Options.Shards), so writers of different keys rarely contend; FIFO
//     order holds within a shard only (guarantee.OrderPerShard).
//   - NewRing: sharded key state like Sharded, but queued keys reach Pop
//     through one lock-free queue of rings (Options.RingSize): global FIFO
//     order, and Pop never scans shards.
//
// Replace and Resync hold every shard lock, so they are atomic with respect
// to Pop's process function and every write. Each variant is a cache.Queue
// and a cache.DoneChecker; a Reflector, cache.New's Config.Queue or any
// code written against client-go's FIFO takes one as it is.
//
// Besides cache.Queue they keep the seed behaviours client-go dropped:
// AddIfNotPresent, and a process function returning ErrRequeue to put its
// object back.
//
// # Differences from client-go
//
// HasSynced waits for the entries the first Replace queued (client-go
// counts that many pops, which is the same under FIFO order); a later
// Replace that discards some of them before they were popped makes its own
// entries the ones HasSynced waits for instead of counting on through the
// new list; and a Pop that passes the last initial entries (deleted ones)
// and then waits reports synced at once instead of when it next returns.
//
// The behaviour is pinned down by fifotest.Run and fifotest.Diff (a
// differential check against client-go's FIFO), which the lab runs over
// every variant and over client-go's FIFO itself.
package fifo

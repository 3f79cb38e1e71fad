// Package fifo provides drop-in implementations of client-go's FIFO
// (cache.Queue holding the latest value per key).
//
// Three layouts share one implementation of the FIFO rules
// (queues/internal/keyq underneath): Mutex (one lock, global FIFO order),
// Sharded (independently locked shards, FIFO order per shard) and Ring
// (sharded key state, global FIFO order through a lock-free queue of rings). Replace
// and Resync hold every shard lock, so they are atomic with respect to Pop's
// process function and every write.
//
// Besides cache.Queue and cache.DoneChecker they keep the seed behaviours
// client-go dropped: AddIfNotPresent and ErrRequeue.
//
// Deliberate differences from client-go: HasSynced waits for the entries
// the first Replace queued (client-go counts that many pops, which is the
// same under FIFO order); a later Replace that discards some of them
// before they were popped makes its own entries the ones HasSynced waits
// for instead of counting on through the new list; and a Pop
// that passes the last initial entries (deleted ones) and then waits
// reports synced at once instead of when it next returns.
//
// The behaviour is pinned down by fifotest.RunFIFO, which also runs against
// client-go's FIFO.
package fifo

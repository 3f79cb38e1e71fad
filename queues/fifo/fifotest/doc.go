// Package fifotest is the conformance suite of the FIFO family: client-go's
// cache.Queue as cache.FIFO implements it, where a key's newest object
// replaces what is queued for it. Like testing/slogtest, it is for anyone
// writing such a queue: call Run from a test with a constructor for fresh
// FIFOs and the Guarantees the implementation declares, and Diff with
// SeedOps of a few seeds (and from a fuzz target with its input). Each
// property is a subtest named for the promise it checks, run on fresh
// queues under a deadlock watchdog (inside testing/synctest where it
// asserts that a Pop is blocked). A property that needs a guarantee the
// implementation does not declare is skipped: "[relaxed]" for a weaker
// order, "[ext]" for the behaviours client-go dropped. client-go's FIFO
// passes every property it is held to.
//
// The contract a FIFO keeps:
//
//   - One entry per key (the key function's answer): Add and Update of a
//     queued key replace its object and keep its place; Delete removes it;
//     a deleted key added again is queued once, at the back. A key-function
//     error is returned as a cache.KeyError and changes nothing.
//   - Pop blocks while nothing is queued, then hands the oldest key's
//     object to the process function under the queue's lock and returns
//     it, with process's error; the object is not queued again. With
//     Guarantees.Order == guarantee.OrderFIFO keys come out in the order
//     they were first queued; with OrderPerShard each comes out once.
//   - Replace sets the exact content (the list's last object of a key
//     wins) and returns a key error before changing anything. Resync does
//     nothing.
//   - HasSynced turns true after the first write (Add, Update, Delete,
//     Replace) once every key of the first Replace has been popped and its
//     process function has returned — also when a relist replaced the list
//     before anything was popped — and never turns false again; a failed
//     write does not count. Pops of the first list report isInInitialList.
//   - Close wakes every blocked Pop with cache.ErrFIFOClosed, after Pop has
//     handed out what is still queued.
//   - Under concurrent producers and one consumer, every key's last object
//     is popped, exactly once after its last write (the hammer), and a
//     single-threaded sequence of operations gives client-go's results
//     (Diff: any operation bytes, the trace printed on failure and the
//     bytes kept for replay; seeded runs and a fuzz target drive it).
//   - [ext] AddIfNotPresent queues an object only for a key that is not
//     queued; a process function returning ErrRequeue puts the object back
//     (with AddIfNotPresent) and Pop returns the error it wraps.
package fifotest

// Package storetest is the conformance suite of the threadSafeMap family: an
// exported function (in the shape of testing/slogtest) that runs one subtest
// per property of SPEC.md's store section against any
// cache.ThreadSafeStore or cache.Indexer, each on a fresh instance under a
// deadlock watchdog, plus a seeded differential check against client-go's
// own store that also backs a fuzz target.
//
// The suite passes on client-go's implementation (a suite client-go fails is
// a wrong suite), except for [ext] properties (IndexFunc errors reported
// instead of panicking, reads that never wait for a writer) and [relaxed]
// ones (guarantees a variant declares it weakens), which are skipped with a
// message saying why.
package storetest

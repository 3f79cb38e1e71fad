// Package queuetest holds exported conformance suites for the queue families,
// in the shape of testing/slogtest: a suite is a function taking a *testing.T
// and a constructor, running one subtest per property of the behaviour
// contract on a fresh instance, each under a deadlock watchdog.
//
// The suites pass on client-go's own implementations (a suite client-go
// fails is a wrong suite), except for [ext] properties (seed behaviours
// client-go dropped, kept by ours) and [relaxed] properties (guarantees a
// variant declares it weakens), which are skipped with a message saying why.
package queuetest

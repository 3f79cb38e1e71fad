// Package readme keeps the README's code honest: every Go block in
// README.md must be an excerpt of an example file that `go test` compiles
// and runs, named in an HTML comment just above the block
// (<!-- snippet: queues/workq/example_test.go -->). A snippet that drifts
// from its example, or names none, fails the test.
package readme

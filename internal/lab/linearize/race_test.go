//go:build race

package linearize_test

// defaultHistories is smaller under the race detector, which slows every
// call several times over, so that make test stays short.
const defaultHistories = 30

//go:build !race

package linearize_test

// defaultHistories per implementation and GOMAXPROCS value when neither
// -linearize.histories nor LINEARIZE_HISTORIES says otherwise.
const defaultHistories = 40

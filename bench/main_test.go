// Package bench holds the lab's go test -bench suites. Every benchmark ranges
// over a family registry, client-go included, and names its sub-benchmarks
// key=value at every level so benchstat can slice by any key (-col /impl).
package bench

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Package suite is the one shape every queuelab conformance suite has, as
// testing/slogtest keeps one table of named cases and one runner: a suite
// is a table of Properties, each checked on a fresh instance under a
// deadlock watchdog, and skipped with its reason when the implementation
// did not declare the guarantee it needs.
//
// The exported suites (queues/.../xxxtest, stores/storetest) build their
// tables from the guarantees an implementation declares and hand them to
// Run; this package is how they stay alike, not part of their API.
package suite

import (
	"testing"
	"time"

	"github.com/queuelab/queuelab/internal/watchdog"
)

// Property is one named behaviour of a contract.
type Property struct {
	// Name is the subtest name: kebab-case, saying what holds
	// ("pop-blocks-until-add"), so a failure reads as the broken promise.
	Name string
	// Skip, when not empty, is why the implementation is not held to the
	// property: "[relaxed] ..." for a guarantee it declares it weakens,
	// "[ext] ..." for a lab extension it does not keep. The subtest is
	// skipped with it and starts no watchdog.
	Skip string
	// Run checks the property on instances it builds itself.
	Run func(t *testing.T)
}

// Unless returns why when declared is false and "" otherwise: the Skip of a
// property the implementation keeps only if it declared so.
func Unless(declared bool, why string) string {
	if declared {
		return ""
	}
	return why
}

// Run runs each property as a subtest of t under a watchdog of timeout
// (watchdog.DefaultTimeout when zero), or skips it with its reason.
func Run(t *testing.T, timeout time.Duration, props []Property) {
	t.Helper()
	if timeout <= 0 {
		timeout = watchdog.DefaultTimeout
	}
	for _, p := range props {
		if p.Skip != "" {
			t.Run(p.Name, func(t *testing.T) { t.Skip(p.Skip) })
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			watchdog.Run(t, timeout, func() { p.Run(t) })
		})
	}
}

// As returns v as I, or fails t: for a capability a property needs and the
// implementation declared (or client-go's own type has), so a missing
// method reads as a broken promise rather than a panic.
func As[I any](t *testing.T, v any) I {
	t.Helper()
	i, ok := v.(I)
	if !ok {
		t.Fatalf("%T does not implement %T", v, (*I)(nil))
	}
	return i
}

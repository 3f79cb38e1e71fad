// Package registrytest checks a family's registry (registry.List) from its tests.
package registrytest

import (
	"testing"

	"github.com/queuelab/queuelab/internal/lab/registry"
)

// CheckGuarantees fails t for every entry of l that want does not name,
// every name of want that l lacks, and every entry whose declared
// guarantees differ from want's: a suite skips properties by these
// declarations, so a wrong one silently skips (or runs) the wrong tests.
func CheckGuarantees[N any, G comparable](t testing.TB, l registry.List[N, G], want map[string]G) {
	t.Helper()
	for _, e := range l {
		w, ok := want[e.Name]
		if !ok {
			t.Errorf("%s: unexpected registry entry", e.Name)
			continue
		}
		if e.Guarantees != w {
			t.Errorf("%s: guarantees %+v, want %+v", e.Name, e.Guarantees, w)
		}
	}
	for name := range want {
		if _, err := l.Lookup(name); err != nil {
			t.Errorf("%s: missing from the registry: %v", name, err)
		}
	}
}

// CheckRejected fails t for every constructor call in builds (named by the
// bad setting it passes) that succeeds: the house rule is that an invalid
// combination of options comes back as an error, never as a queue that
// misbehaves later.
func CheckRejected(t testing.TB, builds map[string]func() (any, error)) {
	t.Helper()
	for name, build := range builds {
		if q, err := build(); err == nil {
			t.Errorf("%s succeeded: %v", name, q)
		}
	}
}

package queuetest_test

import (
	"testing"

	"github.com/queuelab/queuelab/internal/impl"
	"github.com/queuelab/queuelab/internal/watchdog"
)

// auditImpls runs body for every entry of list, as subtest impl=<name>
// under the deadlock watchdog. The audit properties are ones the shared
// suites missed; each pins a bug the audit found and the fix removed.
func auditImpls[N, G any](t *testing.T, list impl.List[N, G], body func(t *testing.T, e impl.Entry[N, G])) {
	for _, e := range list {
		t.Run("impl="+e.Name, func(t *testing.T) {
			watchdog.Run(t, watchdog.DefaultTimeout, func() { body(t, e) })
		})
	}
}

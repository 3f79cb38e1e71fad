package queuetest_test

import (
	"testing"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/registry"
)

// auditImpls runs body for every entry of list, as subtest impl=<name>
// under the deadlock watchdog. The audit properties are ones the shared
// suites missed; each pins a bug the audit found and the fix removed.
func auditImpls[N, G any](t *testing.T, list registry.List[N, G], body func(t *testing.T, e registry.Entry[N, G])) {
	for _, e := range list {
		t.Run("impl="+e.Name, func(t *testing.T) {
			watchdog.Run(t, watchdog.DefaultTimeout, func() { body(t, e) })
		})
	}
}

package queuetest_test

import (
	"os"
	"testing"

	"github.com/queuelab/queuelab/internal/impl"
	"github.com/queuelab/queuelab/internal/watchdog"
)

// auditKnownBugs lists the audit properties an implementation is known to
// fail, "impl/property" → reason. The lead removes an entry when the fix
// lands; the property then runs.
var auditKnownBugs = map[string]string{
	"mutex/popbatch-synced-only-after-last-initial-batch":   "known bug, see report: keyq checks HasSynced before Batch.Process",
	"sharded/popbatch-synced-only-after-last-initial-batch": "known bug, see report: keyq checks HasSynced before Batch.Process",
	"ring/popbatch-synced-only-after-last-initial-batch":    "known bug, see report: keyq checks HasSynced before Batch.Process",
	"mutex/fifo-relist-before-sync-still-waits":             "known bug, see report: keyq's ResetQueue releases the dropped initial entries",
	"sharded/fifo-relist-before-sync-still-waits":           "known bug, see report: keyq's ResetQueue releases the dropped initial entries",
	"ring/fifo-relist-before-sync-still-waits":              "known bug, see report: keyq's ResetQueue releases the dropped initial entries",
}

// skipKnown skips a known bug's property, unless QUEUELAB_AUDIT_KNOWN=run
// asks to watch it fail (or pass, once fixed).
func skipKnown(t *testing.T, implName, property string) {
	t.Helper()
	if reason, ok := auditKnownBugs[implName+"/"+property]; ok && os.Getenv("QUEUELAB_AUDIT_KNOWN") != "run" {
		t.Skip(reason)
	}
}

// auditImpls runs body for every entry of list, as subtest impl=<name>
// under the deadlock watchdog, skipping the entries known to fail property.
func auditImpls[N, G any](t *testing.T, list impl.List[N, G], property string, body func(t *testing.T, e impl.Entry[N, G])) {
	for _, e := range list {
		t.Run("impl="+e.Name, func(t *testing.T) {
			skipKnown(t, e.Name, property)
			watchdog.Run(t, watchdog.DefaultTimeout, func() { body(t, e) })
		})
	}
}

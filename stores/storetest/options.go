package storetest

import (
	"testing"
	"time"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/watchdog"
)

// Option adjusts a suite run to the guarantees the implementation declares.
type Option func(*config)

type config struct {
	ext                bool
	atomicTransactions bool
	snapshotScans      bool
	orderedUpdates     bool
	lockFreeReads      bool
	timeout            time.Duration
}

func newConfig(opts []Option) config {
	c := config{atomicTransactions: true, snapshotScans: true, orderedUpdates: true, timeout: watchdog.DefaultTimeout}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithExt declares that the implementation reports IndexFunc errors instead
// of panicking and leaves the store consistent; without it those [ext]
// properties are skipped (client-go panics).
func WithExt() Option { return func(c *config) { c.ext = true } }

// WithNonAtomicTransactions declares that readers may observe a Transaction
// partly applied (each write is still atomic on its own). The property that
// a concurrent List sees a Transaction all or nothing is then skipped
// [relaxed].
func WithNonAtomicTransactions() Option { return func(c *config) { c.atomicTransactions = false } }

// WithoutSnapshotScans declares that a scan (List, ByIndex, Index,
// IndexKeys) may return objects as of different instants when writes run
// concurrently with it, so its answer may combine states that never
// coexisted (each object is still one that was stored under its key). The
// property that every scan sees one instant of the store is then skipped
// [relaxed].
func WithoutSnapshotScans() Option { return func(c *config) { c.snapshotScans = false } }

// WithoutOrderedUpdates declares that while an update that changes an
// object's index values is in progress, one call may already reflect it
// and a later call of the same reader not yet (a ByIndex finding the key
// under its new value, then a Get returning the old object). The property
// that calls see every update at one instant is then skipped [relaxed].
func WithoutOrderedUpdates() Option { return func(c *config) { c.orderedUpdates = false } }

// WithLockFreeReads declares that readers never wait for a writer: Get,
// List, ListKeys, ByIndex, Index, IndexKeys and ListIndexFuncValues return
// while a write is in progress. Without it that [ext] property is skipped
// (client-go's readers wait for its writer's lock).
func WithLockFreeReads() Option { return func(c *config) { c.lockFreeReads = true } }

// WithTimeout sets each subtest's deadlock watchdog (default
// watchdog.DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// runAll runs props under the configured watchdog.
func (c config) runAll(t *testing.T, props []suite.Property) {
	t.Helper()
	suite.Run(t, c.timeout, props)
}

// extPanics is why the IndexFunc-error properties are [ext].
const extPanics = "[ext] client-go panics when an IndexFunc fails"

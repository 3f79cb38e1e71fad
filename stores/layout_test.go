package stores

import (
	"testing"
	"unsafe"

	"github.com/queuelab/queuelab/internal/cacheline"
)

// TestCacheLineLayout pins the padding of the hot structures (see package
// cacheline): a shard's stride is whole padding units, and within a struct
// the fields readers load are a whole unit away from the fields writers
// write.
func TestCacheLineLayout(t *testing.T) {
	if size := unsafe.Sizeof(shardT{}); size%cacheline.Size != 0 {
		t.Errorf("Sharded's shard stride is %d bytes, not a multiple of %d", size, cacheline.Size)
	}
	apart := func(what string, endOfFirst, startOfSecond uintptr) {
		t.Helper()
		if startOfSecond < endOfFirst+cacheline.Size {
			t.Errorf("%s: %d bytes apart, want at least %d", what, startOfSecond-endOfFirst, cacheline.Size)
		}
	}
	var s Sharded
	apart("Sharded set, seq", unsafe.Offsetof(s.set)+unsafe.Sizeof(s.set), unsafe.Offsetof(s.seq))
	apart("Sharded seq, wmu", unsafe.Offsetof(s.seq)+unsafe.Sizeof(s.seq), unsafe.Offsetof(s.wmu))
	var l LockFree
	apart("LockFree state, mu", unsafe.Offsetof(l.state)+unsafe.Sizeof(l.state), unsafe.Offsetof(l.mu))
	var m lfMap[version, *version]
	apart("lfMap shared part, live", unsafe.Offsetof(m.lfMapShared)+unsafe.Sizeof(m.lfMapShared), unsafe.Offsetof(m.live))
}

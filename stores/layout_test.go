package stores

import (
	"testing"
	"unsafe"
)

// TestCacheLineLayout pins the padding of the hot structures (see
// cacheLine): a shard's stride is whole cache lines, and within a struct the
// fields readers load are a whole cacheLine away from the fields writers
// write.
func TestCacheLineLayout(t *testing.T) {
	if size := unsafe.Sizeof(shardT{}); size%cacheLine != 0 {
		t.Errorf("Sharded's shard stride is %d bytes, not a multiple of %d", size, cacheLine)
	}
	apart := func(what string, endOfFirst, startOfSecond uintptr) {
		t.Helper()
		if startOfSecond < endOfFirst+cacheLine {
			t.Errorf("%s: %d bytes apart, want at least %d", what, startOfSecond-endOfFirst, cacheLine)
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

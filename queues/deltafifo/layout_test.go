package deltafifo

import (
	"testing"
	"unsafe"

	"github.com/queuelab/queuelab/internal/cacheline"
)

// TestArenaStride pins the per-shard arenas' padding (see package
// cacheline): their stride is whole padding units.
func TestArenaStride(t *testing.T) {
	if size := unsafe.Sizeof(arena{}); size%cacheline.Size != 0 {
		t.Errorf("arena is %d bytes, not a multiple of %d", size, cacheline.Size)
	}
}

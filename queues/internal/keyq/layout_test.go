package keyq

import (
	"testing"
	"unsafe"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/cacheline"
)

// TestShardStride pins the shard padding (see package cacheline): a
// shard's stride is whole padding units for any accumulator type.
func TestShardStride(t *testing.T) {
	for what, size := range map[string]uintptr{
		"shardOf[cache.Deltas]": unsafe.Sizeof(shardOf[cache.Deltas]{}),
		"shardOf[any]":          unsafe.Sizeof(shardOf[any]{}),
	} {
		if size%cacheline.Size != 0 {
			t.Errorf("%s is %d bytes, not a multiple of %d", what, size, cacheline.Size)
		}
	}
}

// Package shard spreads keys over a power-of-two number of shards, with the
// runtime's map hasher (hash/maphash), which is randomly seeded per process
// and allocation-free for strings.
//
// queues/internal/keyq (under the lab's own FIFOs and DeltaFIFOs) picks
// shards with Strings. stores.Sharded and workq's Sharded and Ring only
// validate their shard counts here: they take a key's shard from the same
// maphash value their shard's table finds the key by, so a key is hashed
// once rather than once for the shard and again for the table.
package shard

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"runtime"
)

// MaxCount bounds the shard count a caller may ask for.
const MaxCount = 1 << 16

// DefaultCount is the shard count used when the caller does not choose one:
// four shards per P, rounded up to a power of two, so that goroutines running
// on different Ps rarely meet on one lock while a scan over all shards stays
// cheap.
func DefaultCount() int {
	return RoundUp(4 * runtime.GOMAXPROCS(0))
}

// RoundUp returns the smallest power of two ≥ n (and ≥ 1).
func RoundUp(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// Validate checks a user-supplied shard count: 0 selects DefaultCount, any
// other value must be between 1 and MaxCount and is rounded up to a power of
// two.
func Validate(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultCount(), nil
	case n < 0 || n > MaxCount:
		return 0, fmt.Errorf("shard count %d out of range [1, %d] (0 selects the default)", n, MaxCount)
	default:
		return RoundUp(n), nil
	}
}

// Strings maps string keys to one of a fixed power-of-two number of shards,
// and gives a key spelled as a byte slice the same shard as its string form.
// A caller that builds a key in a scratch buffer can route it without first
// converting it to a string (which would allocate); maphash.Comparable could
// not promise that, because it and maphash.Bytes hash differently.
type Strings struct {
	seed maphash.Seed
	mask uint64
}

// NewStrings returns a Strings picker over n shards; n must be a power of
// two (use Validate first).
func NewStrings(n int) Strings {
	if n < 1 || n&(n-1) != 0 {
		panic(fmt.Sprintf("shard: NewStrings needs a power of two, got %d", n)) // programming error, not input
	}
	return Strings{seed: maphash.MakeSeed(), mask: uint64(n - 1)}
}

// Of returns the shard index of s, in [0, n).
func (p Strings) Of(s string) int { return int(maphash.String(p.seed, s) & p.mask) }

// OfBytes returns the shard index of the key spelled by b: the same index
// Of returns for string(b).
func (p Strings) OfBytes(b []byte) int { return int(maphash.Bytes(p.seed, b) & p.mask) }

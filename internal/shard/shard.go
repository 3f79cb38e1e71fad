// Package shard spreads keys over a power-of-two number of shards.
//
// Sharded implementations across the lab use it so that "which shard owns
// this key" is computed one way everywhere, with the runtime's map hasher
// (hash/maphash), which is randomly seeded per process and allocation-free
// for strings.
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

// Picker maps keys of type K to one of a fixed power-of-two number of shards.
type Picker[K comparable] struct {
	seed maphash.Seed
	mask uint64
}

// NewPicker returns a Picker over n shards; n must be a power of two (use
// Validate first).
func NewPicker[K comparable](n int) Picker[K] {
	if n < 1 || n&(n-1) != 0 {
		panic(fmt.Sprintf("shard: NewPicker needs a power of two, got %d", n)) // programming error, not input
	}
	return Picker[K]{seed: maphash.MakeSeed(), mask: uint64(n - 1)}
}

// Of returns the shard index of k, in [0, n).
func (p Picker[K]) Of(k K) int {
	return int(maphash.Comparable(p.seed, k) & p.mask)
}

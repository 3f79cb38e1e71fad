package suite

import (
	"encoding/binary"
	"math/rand/v2"
)

// Ops decodes a differential check's choices from operation bytes (a fuzz
// target's input or a seed's expansion), so every suite's generator reads
// its bytes the same way and any byte string is a valid program; once they
// run out every choice is 0 and Done reports true.
type Ops struct{ b []byte }

// NewOps reads choices from ops.
func NewOps(ops []byte) Ops { return Ops{b: ops} }

// Done reports whether the bytes ran out, which ends a differential run.
func (s *Ops) Done() bool { return len(s.b) == 0 }

// Intn returns a choice in [0, n), n ≤ 256, consuming one byte.
func (s *Ops) Intn(n int) int {
	if len(s.b) == 0 {
		return 0
	}
	v := int(s.b[0]) % n
	s.b = s.b[1:]
	return v
}

// SeedOps expands seed into n operation bytes, the same on every run and
// platform, so a seeded differential run and its replay (from the seed in
// a subtest's name, or a committed op file) decode the same program.
func SeedOps(seed uint64, n int) []byte {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	ops := make([]byte, n)
	_, _ = rand.NewChaCha8(key).Read(ops) // never fails
	return ops
}

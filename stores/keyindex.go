package stores

import "hash/maphash"

// keyIndex maps a key to its slot in a table's dense arrays: open
// addressing with linear probing over 8-byte buckets holding the low 32 bits
// of the key's hash and slot+1 (0 marks an empty bucket). The key itself is
// not repeated: it is compared in the table's key array. The table doubles
// past a load of 13/16 (linear probing stays within a few cache lines of
// 8-byte buckets there), so a key costs 10–20 bytes, against about 40 in a
// Go map[string]int32. Deletion shifts the following buckets back (no
// tombstones), and growing needs no rehashing because the stored hash bits
// give each key's home bucket.
type keyIndex struct {
	seed    maphash.Seed
	buckets []uint64
	n       int
}

func newKeyIndex(seed maphash.Seed, size int) keyIndex {
	ix := keyIndex{seed: seed}
	ix.resize(size)
	return ix
}

func (ix *keyIndex) hash(key string) uint32 { return uint32(maphash.String(ix.seed, key)) }

// find returns the bucket and slot of key, or -1, -1.
func (ix *keyIndex) find(key string, keys []string) (bucket int, slot int32) {
	return ix.findHashed(key, ix.hash(key), keys)
}

// findHashed is find for a key whose hash the caller has.
func (ix *keyIndex) findHashed(key string, h uint32, keys []string) (bucket int, slot int32) {
	buckets := ix.buckets
	mask := len(buckets) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := buckets[i]
		if e == 0 {
			return -1, -1
		}
		if uint32(e>>32) == h {
			if s := int32(uint32(e)) - 1; keys[s] == key {
				return i, s
			}
		}
	}
}

// insertHashed adds the (absent) key with hash h at slot s.
func (ix *keyIndex) insertHashed(h uint32, s int32) {
	if 16*(ix.n+1) > 13*len(ix.buckets) {
		ix.grow()
	}
	ix.place(uint64(h)<<32 | uint64(s+1))
	ix.n++
}

func (ix *keyIndex) place(e uint64) {
	mask := len(ix.buckets) - 1
	i := int(uint32(e>>32)) & mask
	for ix.buckets[i] != 0 {
		i = (i + 1) & mask
	}
	ix.buckets[i] = e
}

// resize sizes empty buckets for size keys at a load of at most 13/16.
func (ix *keyIndex) resize(size int) {
	n := 8
	for 13*n < 16*size {
		n *= 2
	}
	ix.buckets = make([]uint64, n)
}

// grow doubles the buckets, placing each entry by its stored hash bits.
func (ix *keyIndex) grow() {
	old := ix.buckets
	ix.buckets = make([]uint64, 2*len(old))
	for _, e := range old {
		if e != 0 {
			ix.place(e)
		}
	}
}

// setSlot points bucket b at slot s.
func (ix *keyIndex) setSlot(b int, s int32) {
	ix.buckets[b] = ix.buckets[b]&^0xffffffff | uint64(s+1)
}

// deleteAt empties bucket b and shifts back the entries after it that
// would otherwise become unreachable.
func (ix *keyIndex) deleteAt(b int) {
	mask := len(ix.buckets) - 1
	i := b
	for j := (i + 1) & mask; ix.buckets[j] != 0; j = (j + 1) & mask {
		home := int(uint32(ix.buckets[j]>>32)) & mask
		// The entry at j may move to the hole at i unless its home lies
		// cyclically in (i, j].
		if (i <= j && (home <= i || home > j)) || (i > j && home <= i && home > j) {
			ix.buckets[i] = ix.buckets[j]
			i = j
		}
	}
	ix.buckets[i] = 0
	ix.n--
}

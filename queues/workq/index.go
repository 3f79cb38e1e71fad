package workq

import "hash/maphash"

// index maps the items a queue holds to their records (a slab slot, a
// Ring entry). It is an open-addressing table with linear probing that
// keeps each item's hash next to it, so that:
//
//   - Add hashes an item once, for the lookup and the insert together (a Go
//     map needs a lookup and then an assignment, two hashes);
//   - Done removes an item without hashing it again: a table's record keeps
//     the hash and remove finds the cell by its value, or Ring's Done
//     removes at the cell its own lookup found (backward-shift deletion
//     leaves no tombstones).
//
// Done releases items this way, so a queue cycling through distinct keys
// pays no more hashing than one that kept them cached. Removing the last
// item clears the cell, item included, so nothing processed stays
// reachable. The zero value is an empty index. An index is not safe for
// concurrent use.
type index[T comparable, V comparable] struct {
	cells []cell[T, V] // power-of-two length, or nil
	n     int          // occupied cells
}

// cell is one slot of an index; hash 0 marks it empty (hashOf never
// returns 0).
type cell[T comparable, V comparable] struct {
	hash uint64
	item T
	val  V
}

// hashOf is item's hash under seed, never 0.
func hashOf[T comparable](seed maphash.Seed, item T) uint64 {
	return maphash.Comparable(seed, item) | 1
}

// find returns the cell holding item (found) or the empty cell where it
// belongs (cells must not be nil).
func (x *index[T, V]) find(h uint64, item T) (i int, found bool) {
	mask := len(x.cells) - 1
	for i = int(h) & mask; ; i = (i + 1) & mask {
		c := &x.cells[i]
		if c.hash == 0 {
			return i, false
		}
		if c.hash == h && c.item == item {
			return i, true
		}
	}
}

// lookup returns item's value, if held.
func (x *index[T, V]) lookup(h uint64, item T) (v V, ok bool) {
	if x.n == 0 {
		return v, false
	}
	i, ok := x.find(h, item)
	return x.cells[i].val, ok
}

// slot returns the cell holding item (found), or else the empty cell
// where insertAt must put it, growing the table first if it is full
// enough: one probe serves a lookup and the insert that may follow.
func (x *index[T, V]) slot(h uint64, item T) (i int, found bool) {
	if (x.n+1)*4 > len(x.cells)*3 {
		x.grow()
	}
	return x.find(h, item)
}

// at returns the value of cell i.
func (x *index[T, V]) at(i int) V { return x.cells[i].val }

// insertAt stores item with hash h and value v in empty cell i, which slot
// returned and no insert has used since.
func (x *index[T, V]) insertAt(i int, h uint64, item T, v V) {
	x.cells[i] = cell[T, V]{hash: h, item: item, val: v}
	x.n++
}

// grow doubles the table (from 8), re-placing cells by their kept hashes.
func (x *index[T, V]) grow() {
	old := x.cells
	x.cells = make([]cell[T, V], max(8, 2*len(old)))
	mask := len(x.cells) - 1
	for _, c := range old {
		if c.hash == 0 {
			continue
		}
		i := int(c.hash) & mask
		for x.cells[i].hash != 0 {
			i = (i + 1) & mask
		}
		x.cells[i] = c
	}
}

// remove deletes the cell of hash h whose value is v, which the caller
// knows is held, and clears it.
func (x *index[T, V]) remove(h uint64, v V) {
	mask := len(x.cells) - 1
	i := int(h) & mask
	for x.cells[i].hash != h || x.cells[i].val != v {
		i = (i + 1) & mask
	}
	x.removeAt(i)
}

// removeAt deletes and clears occupied cell i (from find or slot), for a
// caller that has just probed for it and need not probe again.
func (x *index[T, V]) removeAt(i int) {
	mask := len(x.cells) - 1
	// Backward-shift deletion: pull later cells of the probe run into the
	// hole unless their home lies cyclically in (hole, cell].
	for j := i; ; {
		j = (j + 1) & mask
		c := x.cells[j]
		if c.hash == 0 {
			break
		}
		home := int(c.hash) & mask
		if i <= j && i < home && home <= j || i > j && (i < home || home <= j) {
			continue
		}
		x.cells[i] = c
		i = j
	}
	x.cells[i] = cell[T, V]{}
	x.n--
}

// len returns the number of items held.
func (x *index[T, V]) len() int { return x.n }

package stores

import (
	"hash/maphash"
	"math/bits"
	"slices"
)

// champ is a persistent hash map keyed by string: a CHAMP trie
// (Steindorfer and Vinju, "Optimizing Hash-Array Mapped Tries for Fast and
// Lean Immutable JVM Collections", OOPSLA 2015). Each node splits on five
// bits of the key's 64-bit hash; entries sit inline in the node that first
// separates them, in a dense array picked out by one bitmap, and subtrees in
// a second dense array picked out by another. A map value is a root pointer
// and a count: copying it is taking a snapshot.
//
// Writes copy the path from the root to the changed node (path copying), so
// every earlier root still describes its own version, unchanged, for as
// long as a reader holds it. A node is mutated in place only by the edit
// (transaction) that created it: a Transaction or a Replace that touches a
// node many times copies it once. An edit's nodes are never mutated after
// the edit is published, since a later edit has another id.
//
// Why not a library: see DESIGN.md, "The snapshot store".
type champ[E champEntry] struct {
	root *cnode[E]
	n    int
}

// champEntry is what a champ holds: a value type carrying its own key, so
// that entries sit inline in the node arrays without a pointer each.
type champEntry interface {
	champKey() string
}

// cnode is one trie node. Below maxShift a node is a bitmap node; at
// maxShift, where the hash bits are spent, it is a collision node holding
// entries with equal hashes in a plain list.
type cnode[E champEntry] struct {
	datamap, nodemap uint32
	edit             uint64 // the edit that may mutate this node in place; 0: none
	entries          []E
	children         []*cnode[E]
}

const (
	champBits = 5
	champMask = 1<<champBits - 1
	// maxShift is where a path runs out of hash bits (13 levels of 5 bits
	// cover 64): nodes there hold colliding keys in a list.
	maxShift = 13 * champBits
)

// champSeed hashes every champ's keys. One seed for the process: versions
// of a map share nodes, so a key must hash the same in all of them.
var champSeed = maphash.MakeSeed()

// champHashMask is all ones except in tests, which narrow it to force
// hash collisions down to the collision nodes.
var champHashMask = ^uint64(0)

func champHash(key string) uint64 { return maphash.String(champSeed, key) & champHashMask }

// index returns the position in a dense array of the element for bit.
func index(bitmap, bit uint32) int { return bits.OnesCount32(bitmap & (bit - 1)) }

func bitOf(h uint64, shift uint) uint32 { return 1 << ((h >> shift) & champMask) }

// get returns the entry whose key is key (h is its champHash).
func (m *champ[E]) get(h uint64, key string) (E, bool) {
	n := m.root
	for shift := uint(0); n != nil; shift += champBits {
		if shift >= maxShift {
			for _, e := range n.entries {
				if e.champKey() == key {
					return e, true
				}
			}
			break
		}
		bit := bitOf(h, shift)
		if n.datamap&bit != 0 {
			if e := n.entries[index(n.datamap, bit)]; e.champKey() == key {
				return e, true
			}
			break
		}
		if n.nodemap&bit == 0 {
			break
		}
		n = n.children[index(n.nodemap, bit)]
	}
	var zero E
	return zero, false
}

// put stores e (h is the champHash of its key) within edit, and reports
// the entry it replaced, if any.
func (m *champ[E]) put(edit uint64, h uint64, e E) (old E, replaced bool) {
	if m.root == nil {
		m.root = &cnode[E]{edit: edit}
	}
	m.root, old, replaced = m.root.put(edit, h, 0, e)
	if !replaced {
		m.n++
	}
	return old, replaced
}

// remove deletes the entry whose key is key within edit, and returns it.
func (m *champ[E]) remove(edit uint64, h uint64, key string) (old E, removed bool) {
	if m.root == nil {
		return old, false
	}
	var root *cnode[E]
	root, old, removed = m.root.remove(edit, h, 0, key)
	if removed {
		m.root = root
		m.n--
	}
	return old, removed
}

// all calls yield with every entry until it returns false; the order is
// the trie's, unspecified.
func (m *champ[E]) all(yield func(E) bool) {
	if m.root != nil {
		m.root.all(yield)
	}
}

func (n *cnode[E]) all(yield func(E) bool) bool {
	for _, e := range n.entries {
		if !yield(e) {
			return false
		}
	}
	for _, c := range n.children {
		if !c.all(yield) {
			return false
		}
	}
	return true
}

// writable returns n itself when edit created it, or a copy owned by edit.
// The copy gets arrays of its own (with room for one more element, the
// usual next step of a put): an edit mutates its nodes in place, and must
// never write into an array a published node shares.
func (n *cnode[E]) writable(edit uint64) *cnode[E] {
	if n.edit == edit && edit != 0 {
		return n
	}
	c := &cnode[E]{datamap: n.datamap, nodemap: n.nodemap, edit: edit}
	if len(n.entries) > 0 {
		c.entries = append(make([]E, 0, len(n.entries)+1), n.entries...)
	}
	if len(n.children) > 0 {
		c.children = append(make([]*cnode[E], 0, len(n.children)+1), n.children...)
	}
	return c
}

func (n *cnode[E]) put(edit uint64, h uint64, shift uint, e E) (*cnode[E], E, bool) {
	key := e.champKey()
	if shift >= maxShift {
		for i := range n.entries {
			if old := n.entries[i]; old.champKey() == key {
				w := n.writable(edit)
				w.entries[i] = e
				return w, old, true
			}
		}
		w := n.writable(edit)
		w.entries = append(w.entries, e)
		var zero E
		return w, zero, false
	}
	bit := bitOf(h, shift)
	switch {
	case n.datamap&bit != 0:
		i := index(n.datamap, bit)
		old := n.entries[i]
		w := n.writable(edit)
		if old.champKey() == key {
			w.entries[i] = e
			return w, old, true
		}
		// Two keys now share these hash bits: push both a level down.
		sub := pair(edit, champHash(old.champKey()), old, h, e, shift+champBits)
		w.entries = slices.Delete(w.entries, i, i+1)
		w.datamap &^= bit
		w.children = slices.Insert(w.children, index(w.nodemap, bit), sub)
		w.nodemap |= bit
		var zero E
		return w, zero, false
	case n.nodemap&bit != 0:
		j := index(n.nodemap, bit)
		child, old, replaced := n.children[j].put(edit, h, shift+champBits, e)
		w := n
		if child != n.children[j] {
			w = n.writable(edit)
			w.children[j] = child
		}
		return w, old, replaced
	default:
		w := n.writable(edit)
		w.entries = slices.Insert(w.entries, index(w.datamap, bit), e)
		w.datamap |= bit
		var zero E
		return w, zero, false
	}
}

// pair returns a node at shift holding a and b, whose keys differ and whose
// hashes agree below shift.
func pair[E champEntry](edit uint64, ha uint64, a E, hb uint64, b E, shift uint) *cnode[E] {
	if shift >= maxShift {
		return &cnode[E]{edit: edit, entries: []E{a, b}}
	}
	ba, bb := bitOf(ha, shift), bitOf(hb, shift)
	if ba == bb {
		sub := pair(edit, ha, a, hb, b, shift+champBits)
		return &cnode[E]{edit: edit, nodemap: ba, children: []*cnode[E]{sub}}
	}
	if ba > bb {
		a, b = b, a
	}
	return &cnode[E]{edit: edit, datamap: ba | bb, entries: []E{a, b}}
}

// inlinable reports whether n holds a single entry and nothing else, so
// its parent can hold that entry itself (CHAMP's canonical form, which
// keeps iteration and lookups short after deletes).
func (n *cnode[E]) inlinable() bool { return len(n.entries) == 1 && len(n.children) == 0 }

func (n *cnode[E]) remove(edit uint64, h uint64, shift uint, key string) (*cnode[E], E, bool) {
	var zero E
	if shift >= maxShift {
		for i, old := range n.entries {
			if old.champKey() == key {
				w := n.writable(edit)
				w.entries = slices.Delete(w.entries, i, i+1)
				return w, old, true
			}
		}
		return n, zero, false
	}
	bit := bitOf(h, shift)
	switch {
	case n.datamap&bit != 0:
		i := index(n.datamap, bit)
		old := n.entries[i]
		if old.champKey() != key {
			return n, zero, false
		}
		w := n.writable(edit)
		w.entries = slices.Delete(w.entries, i, i+1)
		w.datamap &^= bit
		return w, old, true
	case n.nodemap&bit != 0:
		j := index(n.nodemap, bit)
		child, old, removed := n.children[j].remove(edit, h, shift+champBits, key)
		if !removed {
			return n, zero, false
		}
		w := n.writable(edit)
		if child.inlinable() {
			w.children = slices.Delete(w.children, j, j+1)
			w.nodemap &^= bit
			w.entries = slices.Insert(w.entries, index(w.datamap, bit), child.entries[0])
			w.datamap |= bit
		} else {
			w.children[j] = child
		}
		return w, old, true
	default:
		return n, zero, false
	}
}

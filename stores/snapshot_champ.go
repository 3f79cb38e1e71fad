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
// (transaction) that created it: a Transaction that touches a node many
// times copies it once. An edit's nodes are never mutated after the edit
// is published, since a later edit has another id. A map built whole for
// a version nobody can see yet (a Replace, a new index) skips puts
// altogether: buildChamp makes each node once, at its final size.
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
// entries with equal hashes in a plain list. Nodes come from newCnode,
// which allocates a node together with one of its arrays.
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
		m.root = newCnode[E](edit, 0, 0, 0, 0)
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

// runs calls f with the entries of each node in turn, in the trie's
// order: a scan that wants every entry loops over a node's dense array
// itself, without a call per entry.
func (m *champ[E]) runs(f func([]E)) {
	if m.root != nil {
		m.root.runs(f)
	}
}

func (n *cnode[E]) runs(f func([]E)) {
	f(n.entries)
	for _, c := range n.children {
		c.runs(f)
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

// writable returns a node owned by edit with room for moreE more entries
// and moreC more children: n itself when edit created it and it has that
// room, else a copy. A copy of a published node gets exactly the room asked
// for (most writes replace an entry or a child and ask for none), a node
// growing within its own edit (a Transaction adding many entries) twice
// its size, so building stays linear. Either way the
// copy has arrays of its own: an edit mutates its nodes in place, and must
// never write into an array a published node shares.
func (n *cnode[E]) writable(edit uint64, moreE, moreC int) *cnode[E] {
	ne, nc := len(n.entries), len(n.children)
	owned := n.edit == edit && edit != 0
	if owned && cap(n.entries) >= ne+moreE && cap(n.children) >= nc+moreC {
		return n
	}
	capE, capC := ne+moreE, nc+moreC
	if owned {
		capE, capC = max(capE, 2*ne), min(max(capC, 2*nc), 1<<champBits)
	}
	c := newCnode[E](edit, ne, nc, capE, capC)
	c.datamap, c.nodemap = n.datamap, n.nodemap
	copy(c.entries, n.entries)
	copy(c.children, n.children)
	return c
}

// newCnode returns a node owned by edit with ne entries and nc children
// (zero) and room for capE and capC. The node and its one array, or its
// children when it has both, take one allocation (a block of the smallest
// size below that fits), so a path copy allocates once per node, not three
// times, and the node's memory is its header and its slots, without the
// allocator rounding each piece up on its own.
func newCnode[E champEntry](edit uint64, ne, nc, capE, capC int) *cnode[E] {
	var n *cnode[E]
	if capC > 0 {
		var children []*cnode[E]
		n, children = childBlock[E](capC)
		n.children = children[:nc]
		if capE > 0 {
			n.entries = slices.Grow([]E(nil), capE)[:ne]
		}
	} else {
		var entries []E
		n, entries = entryBlock[E](capE)
		n.entries = entries[:ne]
	}
	n.edit = edit
	return n
}

// block is a node and one of its arrays in one allocation.
type block[E champEntry, A any] struct {
	node cnode[E]
	arr  A
}

// newBlock allocates a block whose array is an A, and returns its node and
// the array as a slice (slice, a function without state, says how).
func newBlock[E champEntry, A any, T any](slice func(*A) []T) (*cnode[E], []T) {
	b := new(block[E, A])
	return &b.node, slice(&b.arr)
}

// entryBlock returns a node and an array of at least c entries, in one
// allocation where c fits a bitmap node. The sizes are those of the
// allocator's size classes (a node is 64 bytes, an entry 32 in the
// snapshot store), so that a small node wastes no slot.
func entryBlock[E champEntry](c int) (*cnode[E], []E) {
	switch {
	case c == 0:
		return new(cnode[E]), nil
	case c <= 1:
		return newBlock[E](func(a *[1]E) []E { return a[:] })
	case c <= 2:
		return newBlock[E](func(a *[2]E) []E { return a[:] })
	case c <= 3:
		return newBlock[E](func(a *[3]E) []E { return a[:] })
	case c <= 4:
		return newBlock[E](func(a *[4]E) []E { return a[:] })
	case c <= 5:
		return newBlock[E](func(a *[5]E) []E { return a[:] })
	case c <= 6:
		return newBlock[E](func(a *[6]E) []E { return a[:] })
	case c <= 8:
		return newBlock[E](func(a *[8]E) []E { return a[:] })
	case c <= 12:
		return newBlock[E](func(a *[12]E) []E { return a[:] })
	case c <= 16:
		return newBlock[E](func(a *[16]E) []E { return a[:] })
	case c <= 32:
		return newBlock[E](func(a *[32]E) []E { return a[:] })
	}
	return new(cnode[E]), slices.Grow([]E(nil), c) // a long collision list
}

// childBlock returns a node and an array of at least c (1 to 32) children,
// in one allocation.
func childBlock[E champEntry](c int) (*cnode[E], []*cnode[E]) {
	switch {
	case c <= 2:
		return newBlock[E](func(a *[2]*cnode[E]) []*cnode[E] { return a[:] })
	case c <= 4:
		return newBlock[E](func(a *[4]*cnode[E]) []*cnode[E] { return a[:] })
	case c <= 8:
		return newBlock[E](func(a *[8]*cnode[E]) []*cnode[E] { return a[:] })
	case c <= 12:
		return newBlock[E](func(a *[12]*cnode[E]) []*cnode[E] { return a[:] })
	case c <= 16:
		return newBlock[E](func(a *[16]*cnode[E]) []*cnode[E] { return a[:] })
	case c <= 24:
		return newBlock[E](func(a *[24]*cnode[E]) []*cnode[E] { return a[:] })
	}
	return newBlock[E](func(a *[32]*cnode[E]) []*cnode[E] { return a[:] })
}

func (n *cnode[E]) put(edit uint64, h uint64, shift uint, e E) (*cnode[E], E, bool) {
	key := e.champKey()
	if shift >= maxShift {
		for i := range n.entries {
			if old := n.entries[i]; old.champKey() == key {
				w := n.writable(edit, 0, 0)
				w.entries[i] = e
				return w, old, true
			}
		}
		w := n.writable(edit, 1, 0)
		w.entries = append(w.entries, e)
		var zero E
		return w, zero, false
	}
	bit := bitOf(h, shift)
	switch {
	case n.datamap&bit != 0:
		i := index(n.datamap, bit)
		old := n.entries[i]
		if old.champKey() == key {
			w := n.writable(edit, 0, 0)
			w.entries[i] = e
			return w, old, true
		}
		w := n.writable(edit, 0, 1)
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
			w = n.writable(edit, 0, 0)
			w.children[j] = child
		}
		return w, old, replaced
	default:
		w := n.writable(edit, 1, 0)
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
		n := newCnode[E](edit, 2, 0, 2, 0)
		n.entries[0], n.entries[1] = a, b
		return n
	}
	ba, bb := bitOf(ha, shift), bitOf(hb, shift)
	if ba == bb {
		sub := pair(edit, ha, a, hb, b, shift+champBits)
		n := newCnode[E](edit, 0, 1, 0, 1)
		n.nodemap, n.children[0] = ba, sub
		return n
	}
	if ba > bb {
		a, b = b, a
	}
	n := newCnode[E](edit, 2, 0, 2, 0)
	n.datamap, n.entries[0], n.entries[1] = ba|bb, a, b
	return n
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
				w := n.writable(edit, 0, 0)
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
		w := n.writable(edit, 0, 0)
		w.entries = slices.Delete(w.entries, i, i+1)
		w.datamap &^= bit
		return w, old, true
	case n.nodemap&bit != 0:
		j := index(n.nodemap, bit)
		child, old, removed := n.children[j].remove(edit, h, shift+champBits, key)
		if !removed {
			return n, zero, false
		}
		if !child.inlinable() {
			w := n.writable(edit, 0, 0)
			w.children[j] = child
			return w, old, true
		}
		w := n.writable(edit, 1, 0)
		w.children = slices.Delete(w.children, j, j+1)
		w.nodemap &^= bit
		w.entries = slices.Insert(w.entries, index(w.datamap, bit), child.entries[0])
		w.datamap |= bit
		return w, old, true
	default:
		return n, zero, false
	}
}

// hashed is an entry and its key's champHash, as a bulk build takes them.
type hashed[E champEntry] struct {
	h uint64
	e E
}

// buildChamp returns a champ holding the entries of es, whose keys must be
// distinct, built within edit from the bottom up: the trie that puts of
// the same entries would build (in CHAMP's canonical form), but with every
// node allocated once at its final size and filled once, where puts grow a
// node by reallocations and push entries down a level each time two of
// them meet. It is for a version nobody can see yet (a Replace, a new
// index): nothing is copied for readers. It reorders es into the trie's
// order.
func buildChamp[E champEntry](edit uint64, es []hashed[E]) champ[E] {
	if len(es) == 0 {
		return champ[E]{}
	}
	return champ[E]{root: buildNode(edit, es, 0), n: len(es)}
}

// buildNode returns the node at shift holding es, whose hashes agree below
// shift: the entries alone on their bits at shift inline, a subtree for
// each bit they share.
func buildNode[E champEntry](edit uint64, es []hashed[E], shift uint) *cnode[E] {
	if shift >= maxShift {
		n := newCnode[E](edit, len(es), 0, len(es), 0)
		for i := range es {
			n.entries[i] = es[i].e
		}
		return n
	}
	var counts [1 << champBits]int
	for i := range es {
		counts[(es[i].h>>shift)&champMask]++
	}
	var ne, nc int
	var datamap, nodemap uint32
	for d, c := range counts {
		switch {
		case c == 1:
			datamap |= 1 << d
			ne++
		case c > 1:
			nodemap |= 1 << d
			nc++
		}
	}
	n := newCnode[E](edit, ne, nc, ne, nc)
	n.datamap, n.nodemap = datamap, nodemap
	partition(es, shift, &counts)
	var at, ie, ic int
	for _, c := range counts {
		switch {
		case c == 1:
			n.entries[ie] = es[at].e
			ie++
		case c > 1:
			n.children[ic] = buildNode(edit, es[at:at+c], shift+champBits)
			ic++
		}
		at += c
	}
	return n
}

// partition reorders es in place so that their hash bits at shift ascend
// (counts says how many entries have each value): an American flag sort's
// pass, which moves each misplaced entry once, straight to its group,
// without a second buffer.
func partition[E champEntry](es []hashed[E], shift uint, counts *[1 << champBits]int) {
	var next, end [1 << champBits]int
	at := 0
	for d, c := range counts {
		next[d] = at
		at += c
		end[d] = at
	}
	for d := range counts {
		for next[d] < end[d] {
			x := es[next[d]]
			// Carry x to its group, taking the entry found there on to
			// its own, until an entry of group d comes back.
			for g := int((x.h >> shift) & champMask); g != d; g = int((x.h >> shift) & champMask) {
				es[next[g]], x = x, es[next[g]]
				next[g]++
			}
			es[next[d]] = x
			next[d]++
		}
	}
}

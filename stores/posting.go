package stores

import "sync/atomic"

// posting is a list of versions that readers scan without locks while the
// single writer changes it: the member list of one index value, or the list
// of every object.
//
// The writer appends into spare capacity and then publishes the new length;
// removes by storing nil into the slot (positions never move, so a reader
// never skips a live member); replaces a key's version in place when the new
// version keeps its place in the list. When the slab is full, or mostly
// tombstones, the writer copies the live members into a fresh slab and
// publishes it; readers still scanning the old slab see a consistent, older
// list. Appends and removes are O(1) amortized.
type posting struct {
	cur atomic.Pointer[slab]

	value string // the index value ("" for the list of every object); immutable

	live int32 // non-nil slots; writer-only
}

func (p *posting) mapKey() string { return p.value }

// slab is one generation of a posting's slots; only n slots are published.
type slab struct {
	n     atomic.Int32
	slots []atomic.Pointer[version]
}

func newPosting(value string, capacity int) *posting {
	p := &posting{value: value}
	p.cur.Store(&slab{slots: make([]atomic.Pointer[version], max(capacity, 4))})
	return p
}

// gather appends f of each visible version in the current slab to dst: the
// readers' scan. Generic rather than three loops so ByIndex, IndexKeys and
// Index share it; it inlines, and so does f.
func gather[T any](p *posting, dst []T, f func(*version) T) []T {
	s := p.cur.Load()
	n := s.n.Load()
	for i := range n {
		if v := s.slots[i].Load(); v != nil && v.visible() {
			dst = append(dst, f(v))
		}
	}
	return dst
}

func objOf(v *version) any     { return v.object() }
func keyOf(v *version) string  { return v.key }
func self(v *version) *version { return v }

// size is an upper bound of the members a scan returns now.
func (p *posting) size() int { return int(p.cur.Load().n.Load()) }

// set replaces the version at pos (writer only).
func (p *posting) set(pos int32, v *version) { p.cur.Load().slots[pos].Store(v) }

// push appends v if there is room and returns its position, or -1 when the
// slab is full and must be compacted first (writer only).
func (p *posting) push(v *version) int32 {
	s := p.cur.Load()
	n := s.n.Load()
	if int(n) == len(s.slots) {
		return -1
	}
	s.slots[n].Store(v)
	s.n.Store(n + 1) // publish after the slot is filled
	p.live++
	return n
}

// remove clears pos and reports whether the slab should now be compacted
// because tombstones dominate (writer only).
func (p *posting) remove(pos int32) (compact bool) {
	s := p.cur.Load()
	s.slots[pos].Store(nil)
	p.live--
	n := s.n.Load()
	return n >= 16 && p.live*4 < n
}

// compact publishes a fresh slab holding the live versions in order, with
// room to grow, and calls moved for each with its new position so the
// writer can update its bookkeeping (writer only).
func (p *posting) compact(moved func(v *version, pos int32)) {
	old := p.cur.Load()
	n := old.n.Load()
	s := &slab{slots: make([]atomic.Pointer[version], max(2*int(p.live), 8))}
	j := int32(0)
	for i := range n {
		if v := old.slots[i].Load(); v != nil {
			s.slots[j].Store(v)
			moved(v, j)
			j++
		}
	}
	s.n.Store(j)
	p.cur.Store(s)
}

package stores

import (
	"slices"

	"k8s.io/client-go/tools/cache"
)

// Slot markers in column.one.
const (
	noValue    = -1 // the object has no value in this index
	manyValues = -2 // the object has several values: see column.many
)

// column is one index of a table, built for the common case where an
// IndexFunc returns exactly one value per object.
//
// client-go keeps an index as map[value]sets.Set[key]: a hash map per value,
// a key-string hash and compare per member on ByIndex, and another hash
// lookup per member to fetch the object. Here values are interned to dense
// value ids, each value's members are a plain []int32 of table slot ids
// (order unspecified; removal swaps the last member into the hole), and
// each slot remembers its value id and its position in that member list.
// ByIndex is one map lookup and a gather from the table's object slice; an
// update that leaves the value unchanged is one string compare; removal is
// O(1); the per-object cost is three int32s instead of a set entry holding
// a key string.
type column struct {
	indexFn

	vids    map[string]int32 // value → value id
	vals    []string         // value id → value ("" once freed)
	members [][]int32        // value id → slot ids
	freeV   []int32          // value ids with no members, for reuse

	one  []int32            // slot → value id, noValue or manyValues
	pos  []int32            // slot → position in members[one[slot]]
	many map[int32][]valPos // slot → memberships, for slots with several values
}

// valPos is one membership: value id and position in that value's members.
type valPos struct{ v, p int32 }

func newColumn(name string, fn cache.IndexFunc, slots int) *column {
	c := &column{indexFn: newIndexFn(name, fn), vids: make(map[string]int32)}
	c.one = make([]int32, slots)
	c.pos = make([]int32, slots)
	for i := range c.one {
		c.one[i] = noValue
	}
	return c
}

// grow appends a slot with no values.
func (c *column) grow() {
	c.one = append(c.one, noValue)
	c.pos = append(c.pos, 0)
}

// set makes slot s a member of exactly the values vs (duplicates allowed).
func (c *column) set(s int32, vs []string) {
	if len(vs) == 1 {
		if v := c.one[s]; v >= 0 && c.vals[v] == vs[0] {
			return // the overwhelmingly common update: value unchanged
		}
	}
	c.clear(s)
	switch len(vs) {
	case 0:
	case 1:
		v := c.intern(vs[0])
		c.one[s], c.pos[s] = v, c.join(v, s)
	default:
		var ms []valPos
		for i, value := range vs {
			if slices.Contains(vs[:i], value) {
				continue
			}
			v := c.intern(value)
			ms = append(ms, valPos{v: v, p: c.join(v, s)})
		}
		if len(ms) == 1 {
			c.one[s], c.pos[s] = ms[0].v, ms[0].p
			return
		}
		if c.many == nil {
			c.many = make(map[int32][]valPos)
		}
		c.one[s] = manyValues
		c.many[s] = ms
	}
}

// clear removes slot s from every value it is a member of.
func (c *column) clear(s int32) {
	switch v := c.one[s]; v {
	case noValue:
		return
	case manyValues:
		ms := c.many[s]
		delete(c.many, s)
		c.one[s] = noValue
		for _, m := range ms {
			c.leave(m.v, m.p)
		}
	default:
		c.one[s] = noValue
		c.leave(v, c.pos[s])
	}
}

// intern returns the value id of value, allocating one if needed.
func (c *column) intern(value string) int32 {
	if v, ok := c.vids[value]; ok {
		return v
	}
	var v int32
	if n := len(c.freeV); n > 0 {
		v = c.freeV[n-1]
		c.freeV = c.freeV[:n-1]
		c.vals[v] = value
	} else {
		v = int32(len(c.vals))
		c.vals = append(c.vals, value)
		c.members = append(c.members, nil)
	}
	c.vids[value] = v
	return v
}

// join appends slot s to value v's members and returns its position.
func (c *column) join(v, s int32) int32 {
	c.members[v] = append(c.members[v], s)
	return int32(len(c.members[v]) - 1)
}

// leave removes the member at position p of value v by moving the last
// member into the hole; a value left without members is forgotten so that
// ListIndexFuncValues no longer reports it and its memory is released
// (client-go had to learn the same lesson: kubernetes#84959).
func (c *column) leave(v, p int32) {
	m := c.members[v]
	last := int32(len(m) - 1)
	if p != last {
		moved := m[last]
		m[p] = moved
		c.setPos(moved, v, p)
	}
	if last == 0 {
		delete(c.vids, c.vals[v])
		c.vals[v] = ""
		c.members[v] = nil
		c.freeV = append(c.freeV, v)
		return
	}
	c.members[v] = m[:last]
}

// setPos records that slot s now sits at position p of value v's members.
func (c *column) setPos(s, v, p int32) {
	if c.one[s] == v {
		c.pos[s] = p
		return
	}
	ms := c.many[s]
	for i := range ms {
		if ms[i].v == v {
			ms[i].p = p
			return
		}
	}
}

// move renumbers slot from as slot to (to is free); the table uses it to
// keep slots dense when it deletes.
func (c *column) move(from, to int32) {
	c.one[to], c.pos[to] = c.one[from], c.pos[from]
	switch v := c.one[to]; v {
	case noValue:
	case manyValues:
		ms := c.many[from]
		delete(c.many, from)
		c.many[to] = ms
		for _, m := range ms {
			c.members[m.v][m.p] = to
		}
	default:
		c.members[v][c.pos[to]] = to
	}
}

// truncate drops the last slot, which must have no values.
func (c *column) truncate() {
	n := len(c.one) - 1
	c.one, c.pos = c.one[:n], c.pos[:n]
}

// slotsOf returns the members of value (nil if none).
func (c *column) slotsOf(value string) []int32 {
	if v, ok := c.vids[value]; ok {
		return c.members[v]
	}
	return nil
}

// sizeHint is the number of objects an Index call for values returns when
// values holds one value (the usual case); with several values the
// deduplicated count is unknown until the scan.
func (c *column) sizeHint(values []string) int {
	if len(values) == 1 {
		return len(c.slotsOf(values[0]))
	}
	return 0
}

// appendValues appends every value with at least one member.
func (c *column) appendValues(dst []string) []string {
	for value := range c.vids {
		dst = append(dst, value)
	}
	return dst
}

package storetest

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
)

// A key's writes must reach readers in order, even across calls to
// different methods: once one call of a reader reflects a write to a key
// (a Get, or a scan such as ByIndex), no later call of that reader may
// reflect the key's state before that write. client-go gives this by
// locking; a store whose writer updates its key map and its indexes one
// after the other must hide the steps in between.

// orderRig runs a writer over keys 0..n-1 in order, round after round, and
// readers that probe the key the writer is at. The writer publishes the
// phase and the key it is at in one word, so a reader never pairs a new
// phase with the last key of the previous one; a probe counts only if the
// phase did not change while it ran, so a probe straddling two phases is
// not mistaken for a violation.
type orderRig struct {
	state atomic.Int64 // phase<<32 | the key the writer is writing (or just wrote)
}

func (r *orderRig) run(readers int, probe func(i int, phase int64) bool, write func()) {
	stop := whileReading(readers, func() bool {
		s := r.state.Load()
		return probe(int(uint32(s)), s>>32)
	})
	write()
	stop()
}

// at publishes that the writer is at key i (only the writer calls it).
func (r *orderRig) at(i int) { r.state.Store(r.state.Load()&^(1<<32-1) | int64(i)) }

// nextPhase starts the next phase, at key 0 (only the writer calls it).
func (r *orderRig) nextPhase() { r.state.Store((r.state.Load()>>32 + 1) << 32) }

// unchanged reports whether the phase is still the one a probe started in.
func (r *orderRig) unchanged(phase int64) bool { return r.state.Load()>>32 == phase }

// insertsAndDeletesAreAtomic: the writer inserts a round's keys in order,
// then deletes them in order; no key is ever re-added. While keys are
// being inserted, a ByIndex that finds key i must be followed by a Get
// that finds it, and a Get that finds it by a ByIndex that does; while
// they are being deleted, a Get that misses key i must be followed by a
// ByIndex that misses it, and a ByIndex that misses it by a Get that does.
// A key the writer is done with is found (or missed) by both.
func (s storeSuite) insertsAndDeletesAreAtomic(t *testing.T) {
	const n, rounds = 1000, 12
	st := s.newStore(Indexers())
	ns := nsName(0)
	name := func(round int64, i int) string { return objName(int(round)*n + i) }
	r := &orderRig{}
	r.run(2, func(i int, phase int64) bool {
		round, deleting := phase/2, phase%2 == 1
		if round == rounds {
			return true // the writer is done
		}
		k := ns + "/" + name(round, i)
		inIndex := func() bool {
			objs, err := st.ByIndex(appIndex, name(round, i))
			return err == nil && len(objs) == 1
		}
		inMap := func() bool { _, ok := st.Get(k); return ok }
		// Probe both orders: map then index, index then map.
		m1, x1 := inMap(), inIndex()
		x2, m2 := inIndex(), inMap()
		// The previous key's write returned before the writer published i.
		prev := ns + "/" + name(round, i-1)
		_, pm := st.Get(prev)
		pobjs, _ := st.ByIndex(appIndex, name(round, i-1))
		px := len(pobjs) == 1
		if !r.unchanged(phase) {
			return true
		}
		var bad string
		switch {
		case i > 0 && (pm != !deleting || px != !deleting):
			k, bad = prev, fmt.Sprintf("after the writer finished with it, Get found it: %v, ByIndex: %v", pm, px)
		case !deleting && m1 && !x1:
			bad = "Get found it, a later ByIndex did not"
		case !deleting && x2 && !m2:
			bad = "ByIndex found it, a later Get did not"
		case deleting && !m1 && x1:
			bad = "Get no longer found it, a later ByIndex still did"
		case deleting && !x2 && m2:
			bad = "ByIndex no longer found it, a later Get still did"
		}
		if bad != "" {
			t.Errorf("while %s being %s: %s", k, map[bool]string{false: "inserted", true: "deleted"}[deleting], bad)
			return false
		}
		return true
	}, func() {
		for round := range int64(rounds) {
			for i := range n {
				r.at(i)
				o := object(ns, name(round, i), "1", name(round, i), "")
				st.Add(keyOf(o), o)
			}
			r.nextPhase()
			for i := range n {
				r.at(i)
				st.Delete(ns + "/" + name(round, i))
			}
			r.nextPhase()
		}
	})
}

// updatesAreAtomic: every round the writer moves each key, in order, to a
// new index value and resourceVersion. A ByIndex that finds key i under
// the round's value must be followed by a Get returning the round's
// version; a Get returning it, by a ByIndex that no longer finds the key
// under the previous round's value. [relaxed: Guarantees.OrderedUpdates]
func (s storeSuite) updatesAreAtomic(t *testing.T) {
	const n, rounds = 1000, 12
	st := s.newStore(Indexers())
	ns := nsName(0)
	value := func(round int64, i int) string { return "r" + itoa(int(round)) + "-" + itoa(i) }
	write := func(round int64, i int) {
		o := object(ns, objName(i), itoa(int(round)), value(round, i), "")
		st.Update(keyOf(o), o)
	}
	for i := range n {
		write(0, i)
	}
	r := &orderRig{}
	r.nextPhase() // phase = the round being written
	r.run(2, func(i int, round int64) bool {
		if round > rounds {
			return true // the writer is done
		}
		k := ns + "/" + objName(i)
		rvOf := func() int {
			o, ok := st.Get(k)
			if !ok {
				return -1
			}
			m, _ := metaOf(o)
			rv, _ := strconv.Atoi(m.GetResourceVersion())
			return rv
		}
		under := func(round int64) bool {
			objs, err := st.ByIndex(appIndex, value(round, i))
			return err == nil && len(objs) == 1
		}
		x1, rv1 := under(round), rvOf()
		rv2, x2 := rvOf(), under(round-1)
		if !r.unchanged(round) {
			return true
		}
		var bad string
		switch {
		case rv1 < 0 || rv2 < 0:
			bad = "Get did not find it"
		case x1 && rv1 != int(round):
			bad = "ByIndex found it under the new value, a later Get returned the old version"
		case rv2 == int(round) && x2:
			bad = "Get returned the new version, a later ByIndex still found it under the old value"
		}
		if bad != "" {
			t.Errorf("while %s was being updated to round %d: %s", k, round, bad)
			return false
		}
		return true
	}, func() {
		for round := int64(1); round <= rounds; round++ {
			for i := range n {
				r.at(i)
				write(round, i)
			}
			r.nextPhase()
		}
	})
}

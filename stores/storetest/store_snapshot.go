package storetest

import (
	"strconv"
	"testing"
)

// scansAreSnapshots: client-go's List, ByIndex and Index hold the read
// lock for the whole scan, so a lister always sees a state the store was
// in at one instant. A controller counting replicas from a lister relies on
// that: it may see a stale state, but never pod A deleted and pod B not yet
// created when B was created before A was deleted.
//
// The writer updates objects 0..n-1 in that order, round after round, each
// to the round's resourceVersion; every state the store passes through has
// those versions non-increasing in object order. A scan that returns a
// later version for object j than for an earlier object i mixed two
// instants. [relaxed: Guarantees.SnapshotScans]
func (s storeSuite) scansAreSnapshots(t *testing.T) {
	const n, rounds = 128, 150
	st := s.newStore(Indexers())
	ns := nsName(0)
	write := func(round int) {
		for i := range n {
			o := object(ns, objName(i), itoa(round), "app", "")
			st.Update(key(o), o)
		}
	}
	write(0)
	check := func(what string, objs []any, err error) bool {
		if err != nil || len(objs) != n {
			t.Errorf("%s: %d objects (err %v), want %d", what, len(objs), err, n)
			return false
		}
		rv := make([]int, n)
		for _, o := range objs {
			m, _ := metaOf(o)
			i, _ := strconv.Atoi(m.GetName()[len("obj-"):])
			rv[i], _ = strconv.Atoi(m.GetResourceVersion())
		}
		for i := 1; i < n; i++ {
			if rv[i] > rv[i-1] {
				t.Errorf("%s saw %s at round %d but the earlier-written %s still at round %d: "+
					"a state the store never was in (the scan is not a snapshot)",
					what, objName(i), rv[i], objName(i-1), rv[i-1])
				return false
			}
		}
		return true
	}
	stop := whileReading(2, func() bool {
		objs, err := st.ByIndex(nsIndex, ns)
		return check("List", st.List(), nil) && check("ByIndex", objs, err)
	})
	for r := 1; r <= rounds && !t.Failed(); r++ {
		write(r)
	}
	stop()
}

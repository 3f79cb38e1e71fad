package storetest

import (
	"testing"

	clientgofeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
)

// rvChecker asserts LastStoreSyncResourceVersion, which client-go reports as
// "" while its AtomicFIFO feature gate is off.
type rvChecker struct {
	t       *testing.T
	s       interface{ LastStoreSyncResourceVersion() string }
	visible bool
}

func newRVChecker(t *testing.T, s interface{ LastStoreSyncResourceVersion() string }) rvChecker {
	return rvChecker{t: t, s: s, visible: clientgofeatures.FeatureGates().Enabled(clientgofeatures.AtomicFIFO)}
}

func (c rvChecker) want(after, rv string) {
	c.t.Helper()
	if !c.visible {
		rv = ""
	}
	if got := c.s.LastStoreSyncResourceVersion(); got != rv {
		c.t.Errorf("after %s: LastStoreSyncResourceVersion = %q, want %q", after, got, rv)
	}
}

func (s storeSuite) resourceVersion(t *testing.T) {
	st := s.newStore(Indexers())
	rv := newRVChecker(t, st)
	rv.want("creation", "")
	put(st, object("ns1", "a", "10", "x", ""))
	rv.want("Add rv=10", "10")
	put(st, object("ns1", "b", "5", "x", ""))
	rv.want("Add rv=5 (the last seen, not the highest)", "5")
	st.DeleteWithObject("ns1/a", object("ns1", "a", "30", "x", ""))
	rv.want("DeleteWithObject rv=30", "30")
	st.Delete("ns1/b")
	rv.want("Delete (no object)", "30")
	st.DeleteWithObject("ns1/missing", object("ns1", "missing", "31", "", ""))
	rv.want("DeleteWithObject of a missing key rv=31", "31")
	st.Bookmark("40")
	rv.want("Bookmark 40", "40")
	st.Replace(map[string]any{"ns1/c": object("ns1", "c", "45", "", "")}, "50")
	rv.want("Replace rv=50", "50")
	st.Replace(map[string]any{}, "")
	rv.want(`Replace rv=""`, "")

	plain := s.newStore(cache.Indexers{})
	prv := newRVChecker(t, plain)
	plain.Add("k", object("", "k", "60", "", ""))
	plain.Add("s", "not an object")
	prv.want("Add of an object without ObjectMeta", "60")
	plain.DeleteWithObject("s", "not an object")
	prv.want("DeleteWithObject without ObjectMeta", "60")
}

package queuesuite

import (
	"k8s.io/client-go/tools/cache"
)

// ApplyDeltas does to store what an informer's processDeltas does with a
// popped Deltas: every delta but a deletion adds or updates the object, a
// deletion removes it. Suites, benchmarks and load generators use it as the
// consumer that keeps KnownObjects.
func ApplyDeltas(store cache.Store, ds cache.Deltas) error {
	for _, d := range ds {
		var err error
		if d.Type == cache.Deleted {
			err = store.Delete(d.Object)
		} else {
			err = store.Update(d.Object)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// oneKey is a KnownObjects view of store restricted to key k: the
// differential check feeds each per-key client-go reference only its own
// key's share of the consumer's state.
type oneKey struct {
	store cache.Store
	k     string
}

func (o oneKey) ListKeys() []string {
	if _, ok, _ := o.store.GetByKey(o.k); ok {
		return []string{o.k}
	}
	return nil
}

func (o oneKey) GetByKey(k string) (any, bool, error) {
	if k != o.k {
		return nil, false, nil
	}
	return o.store.GetByKey(k)
}

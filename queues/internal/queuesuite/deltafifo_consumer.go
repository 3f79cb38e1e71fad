package queuesuite

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// ApplyDeltas does to store what an informer's consumer does with popped
// events, for the queues whose next events depend on that store
// (KnownObjects): a deletion removes the object, a ReplacedAll (an in-order
// FIFO's atomic relist) makes the store exactly its list, a SyncAll or
// Bookmark changes nothing, and every other delta adds or updates the
// object. Suites, benchmarks and load generators use it as the consumer
// that keeps KnownObjects, without the informer's handlers.
func ApplyDeltas(store cache.Store, ds cache.Deltas) error {
	for _, d := range ds {
		var err error
		switch d.Type {
		case cache.Deleted:
			err = store.Delete(d.Object)
		case cache.ReplacedAll:
			info, ok := d.Object.(cache.ReplacedAllInfo)
			if !ok {
				return fmt.Errorf("ReplacedAll event holding %T, want cache.ReplacedAllInfo", d.Object)
			}
			err = store.Replace(info.Objects, info.ResourceVersion)
		case cache.SyncAll, cache.Bookmark:
		default:
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

package deltafifo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/internal/keyq"
)

// GetByKey returns a copy of key's queued Deltas; exists is false when it
// has none. (client-go v0.37 keeps these accessors for its own tests only;
// the lab's queues export them.)
func (f *core) GetByKey(key string) (item any, exists bool, err error) {
	var ds cache.Deltas
	f.set.Read(key, nil, func(sl *keyq.Slot[cache.Deltas]) {
		if len(sl.Acc) > 0 {
			ds = append(cache.Deltas(nil), sl.Acc...)
		}
	})
	if ds == nil {
		return nil, false, nil
	}
	return ds, true, nil
}

// Get returns a copy of the queued Deltas of obj's key (see KeyOf).
func (f *core) Get(obj any) (item any, exists bool, err error) {
	key, err := f.KeyOf(obj)
	if err != nil {
		return nil, false, cache.KeyError{Obj: obj, Err: err}
	}
	return f.GetByKey(key)
}

// List returns the newest object of every queued key, in no particular
// order.
func (f *core) List() []any {
	var out []any
	f.eachQueued(func(sl *keyq.Slot[cache.Deltas]) { out = append(out, sl.Acc.Newest().Object) })
	return out
}

// ListKeys returns every queued key, in no particular order.
func (f *core) ListKeys() []string {
	var out []string
	f.eachQueued(func(sl *keyq.Slot[cache.Deltas]) { out = append(out, sl.Key) })
	return out
}

func (f *core) eachQueued(fn func(sl *keyq.Slot[cache.Deltas])) {
	_ = f.set.Bulk(func(b *bulk) error {
		b.Range(func(_ keyq.Ref, sl *keyq.Slot[cache.Deltas]) bool {
			if len(sl.Acc) > 0 {
				fn(sl)
			}
			return true
		})
		return nil
	})
}

package inorder

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// Per-object mode (Options.KnownObjects): a relist and a resync become one
// event per object, decided against the queued events and the consumer's
// store. Both build every event before queueing any, so an error leaves the
// queue as it was.

// keyOf keys an object as client-go's RealFIFO does: a tombstone by its Key.
func (c *core) keyOf(obj any) (string, error) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	k, err := c.s.KeyFunction(obj)
	if err != nil {
		return "", cache.KeyError{Obj: obj, Err: err}
	}
	return k, nil
}

// eachQueued calls fn with every queued event and its key, oldest first,
// stopping at the first key error, which it returns. q.mu is held.
func (q *Mutex) eachQueued(fn func(k string, d cache.Delta)) error {
	var keyErr error
	q.items.All(func(d cache.Delta) bool {
		k, err := q.keyOf(d.Object)
		if err != nil {
			keyErr = err
			return false
		}
		fn(k, d)
		return true
	})
	return keyErr
}

// reconcile returns a relist's events: a Deleted tombstone for each key
// queued (in queue order) or known (in KnownObjects' order) but not listed,
// unless its last queued event already deletes it, then a Replaced event per
// listed object in list order. q.mu is held.
func (q *Mutex) reconcile(list []any) ([]cache.Delta, error) {
	listed := make(map[string]struct{}, len(list))
	for _, obj := range list {
		k, err := q.keyOf(obj)
		if err != nil {
			return nil, err
		}
		listed[k] = struct{}{}
	}
	var order []string
	last := make(map[string]cache.Delta)
	if err := q.eachQueued(func(k string, d cache.Delta) {
		if _, seen := last[k]; !seen {
			order = append(order, k)
		}
		last[k] = d
	}); err != nil {
		return nil, err
	}
	events := make([]cache.Delta, 0, len(list))
	tombstone := func(k string, obj any) {
		events = append(events, cache.Delta{Type: cache.Deleted, Object: cache.DeletedFinalStateUnknown{Key: k, Obj: obj}})
	}
	for _, k := range order {
		if _, ok := listed[k]; ok || last[k].Type == cache.Deleted {
			continue
		}
		tombstone(k, last[k].Object)
	}
	for _, k := range q.s.KnownObjects.ListKeys() {
		if _, ok := listed[k]; ok {
			continue
		}
		if _, queued := last[k]; queued {
			continue
		}
		// A failed or empty lookup still gets its tombstone, without the
		// object, as client-go places it.
		obj, exists, err := q.s.KnownObjects.GetByKey(k)
		if err != nil || !exists {
			obj = nil
		}
		tombstone(k, obj)
	}
	for _, obj := range list {
		d, err := q.event(cache.Replaced, obj)
		if err != nil {
			return nil, fmt.Errorf("inorder: couldn't enqueue object: %w", err)
		}
		events = append(events, d)
	}
	return events, nil
}

// resyncEvents returns a Sync event for every known object whose key has no
// event queued (one queued would carry a newer state than the store's).
// q.mu is held.
func (q *Mutex) resyncEvents() ([]cache.Delta, error) {
	queued := make(map[string]struct{}, q.items.Len())
	if err := q.eachQueued(func(k string, _ cache.Delta) { queued[k] = struct{}{} }); err != nil {
		return nil, err
	}
	var events []cache.Delta
	for _, k := range q.s.KnownObjects.ListKeys() {
		if _, ok := queued[k]; ok {
			continue
		}
		obj, exists, err := q.s.KnownObjects.GetByKey(k)
		if err != nil || !exists {
			continue // gone since it was listed: nothing to resync
		}
		events = append(events, cache.Delta{Type: cache.Sync, Object: obj})
	}
	return events, nil
}

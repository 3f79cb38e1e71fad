package stores

import (
	"reflect"
	"sync/atomic"
)

// version is one (key, object) pair as LockFree publishes it: what a reader
// finds through the key map, the list of every object and the index
// postings. key never changes, so a reader holding a version always sees a
// key together with an object that was stored under it.
//
// The object is an atomic.Value so that the common informer update, a new
// object of the same type with the same index values, is one atomic store
// into the version every structure already points to: no allocation, and
// every posting the version sits in stays right, since the new object has
// exactly its index values. An update that changes an index value, or the
// object's type (atomic.Value holds one type; no informer changes it), or
// stores nil, publishes a new version instead, and the postings swap the
// old one for it; readers then see either, never a mix.
//
// allPos and marks are the writer's bookkeeping, which readers never touch:
// where the version sits in the list of every object and in the index
// postings. Only the current version of a key is in any posting, so the
// writer keeps that bookkeeping on it (carrying it over to a replacing
// version) instead of in a separate per-key map: no second hash lookup and
// no per-key allocation beyond the version and its marks.
//
// hidden makes a key's insertion and deletion single atomic steps for
// readers, although the writer touches several structures (key map, list
// of every object, postings): a new key's version is linked in hidden and
// revealed last, and a deleted key's version is hidden first, and every
// reader skips hidden versions. Without it a Get that no longer found a
// key being deleted could be followed by a ByIndex that still returned it.
// (It fits in the 64-byte size class the version already takes.)
type version struct {
	key string
	obj atomic.Value // the object; nilObject stands for nil

	allPos int32       // position in the list of every object
	hidden atomic.Bool // being inserted or deleted: readers skip it
	marks  []lfMark    // index memberships
}

// lfMark is one index membership of a version: column, posting and slot.
type lfMark struct {
	p   *posting
	col int32
	pos int32
}

// nilObject stands in for a nil object, which atomic.Value cannot hold.
type nilObject struct{}

func newVersion(key string, obj any) *version {
	v := &version{key: key}
	if obj == nil {
		obj = nilObject{}
	}
	v.obj.Store(obj)
	return v
}

func (v *version) mapKey() string { return v.key }

// visible reports whether readers may return v (see hidden).
func (v *version) visible() bool { return !v.hidden.Load() }

// object returns the current object.
func (v *version) object() any {
	obj := v.obj.Load()
	if _, isNil := obj.(nilObject); isNil {
		return nil
	}
	return obj
}

// canHold reports whether obj can replace the object in place: same
// dynamic type (what atomic.Value requires), neither nil.
func (v *version) canHold(obj any) bool {
	return obj != nil && reflect.TypeOf(obj) == reflect.TypeOf(v.obj.Load())
}

package keyq

import (
	"reflect"

	"k8s.io/client-go/tools/cache"
)

// ScratchSize is the stack buffer a caller should give KeyFunc.Key: enough
// for namespace/name keys (both are DNS labels or subdomains, at most 63 and
// 253 bytes); longer keys still work, they just spill to the heap.
const ScratchSize = 320

// Key names a slot. It holds either a string (from a caller's key function
// or a listing) or bytes the default key function assembled in a caller's
// scratch buffer: looking a byte key up never allocates, and a string is
// made from it only when a new slot is created.
type Key struct {
	s     string
	b     []byte
	bytes bool
}

// StringKey returns the Key for s.
func StringKey(s string) Key { return Key{s: s} }

// BytesKey returns the Key spelled by b. The Set does not retain b.
func BytesKey(b []byte) Key { return Key{b: b, bytes: true} }

// String returns the key as a string, allocating only for a byte key.
func (k Key) String() string {
	if k.bytes {
		return string(k.b)
	}
	return k.s
}

// KeyFunc computes keys the way a cache.KeyFunc does, but recognises
// client-go's default key functions and then builds namespace/name keys in
// the caller's scratch buffer instead of concatenating a new string for
// every call: an informer's Add, Update and Pop of a known key then cost no
// key allocation at all.
type KeyFunc struct {
	fn cache.KeyFunc
	// meta: fn is cache.MetaNamespaceKeyFunc (or was nil, which selects it).
	meta bool
	// tombstones: fn is cache.DeletionHandlingMetaNamespaceKeyFunc, which
	// keys a DeletedFinalStateUnknown by its Key field first.
	tombstones bool
}

// NewKeyFunc wraps fn; nil selects cache.MetaNamespaceKeyFunc, as
// cache.DeltaFIFOOptions does.
func NewKeyFunc(fn cache.KeyFunc) KeyFunc {
	switch {
	case fn == nil || sameFunc(fn, cache.MetaNamespaceKeyFunc):
		return KeyFunc{fn: cache.MetaNamespaceKeyFunc, meta: true}
	case sameFunc(fn, cache.DeletionHandlingMetaNamespaceKeyFunc):
		return KeyFunc{fn: fn, meta: true, tombstones: true}
	default:
		return KeyFunc{fn: fn}
	}
}

func sameFunc(a, b cache.KeyFunc) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

// Func returns the wrapped cache.KeyFunc.
func (f KeyFunc) Func() cache.KeyFunc { return f.fn }

// Key returns obj's key and exactly the error the wrapped function would
// return. scratch (usually a stack array of ScratchSize bytes) may back the
// returned Key, which is therefore only valid until scratch is reused.
func (f KeyFunc) Key(obj any, scratch []byte) (Key, error) {
	if !f.meta {
		s, err := f.fn(obj)
		return StringKey(s), err
	}
	if f.tombstones {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			return StringKey(d.Key), nil
		}
	}
	if k, ok := obj.(cache.ExplicitKey); ok {
		return StringKey(string(k)), nil
	}
	name, err := cache.ObjectToName(obj)
	if err != nil {
		return Key{}, err
	}
	if name.Namespace == "" {
		return StringKey(name.Name), nil
	}
	b := append(scratch[:0], name.Namespace...)
	b = append(b, '/')
	b = append(b, name.Name...)
	return BytesKey(b), nil
}

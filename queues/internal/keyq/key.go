package keyq

import (
	"reflect"

	"k8s.io/client-go/tools/cache"
)

// ScratchSize is the stack buffer a caller should give KeyFunc.Key: enough
// for namespace/name keys (both are DNS labels or subdomains, at most 63 and
// 253 bytes); longer keys still work, they just spill to the heap.
const ScratchSize = 320

// A key is passed around as a pair (s string, b []byte): b != nil spells
// the key in a caller's scratch buffer (as the default key function builds
// it), otherwise s is the key. Looking a byte key up never allocates, and a
// string is made from it only when a new slot is created. (A struct holding
// both would do, but escape analysis treats a struct as one value: a stored
// string key would make every caller's scratch buffer escape to the heap.)

// KeyString returns the key as a string, allocating only for a byte key.
func KeyString(s string, b []byte) string {
	if b != nil {
		return string(b)
	}
	return s
}

// keyIs reports whether key equals the key (ks, kb), without allocating.
func keyIs(key, ks string, kb []byte) bool {
	if kb != nil {
		return key == string(kb)
	}
	return key == ks
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

// Key returns obj's key — as s, or spelled in b (non-nil, backed by scratch,
// usually a stack array of ScratchSize bytes) — and exactly the error the
// wrapped function would return.
func (f KeyFunc) Key(obj any, scratch []byte) (s string, b []byte, err error) {
	if !f.meta {
		s, err = f.fn(obj)
		return s, nil, err
	}
	if f.tombstones {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			return d.Key, nil, nil
		}
	}
	if k, ok := obj.(cache.ExplicitKey); ok {
		return string(k), nil, nil
	}
	name, err := cache.ObjectToName(obj)
	if err != nil {
		return "", nil, err
	}
	if name.Namespace == "" {
		return name.Name, nil, nil
	}
	b = append(scratch[:0], name.Namespace...)
	b = append(b, '/')
	b = append(b, name.Name...)
	return "", b, nil
}

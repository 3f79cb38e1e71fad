package stores

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// indexFn is a named IndexFunc as a store's writer evaluates it: what the
// column types of Mutex's table and LockFree's state have in common.
type indexFn struct {
	name string
	fn   cache.IndexFunc

	// namespace: fn is cache.MetaNamespaceIndexFunc, the index nearly every
	// namespaced lister uses. values then computes it itself, into buf,
	// instead of calling it: client-go's function allocates a one-element
	// slice per call, which would be the only allocation of an update.
	namespace bool
	buf       [1]string
}

func newIndexFn(name string, fn cache.IndexFunc) indexFn {
	return indexFn{name: name, fn: fn, namespace: isMetaNamespaceIndexFunc(fn)}
}

// metaNamespaceIndexFunc is the entry point of cache.MetaNamespaceIndexFunc.
var metaNamespaceIndexFunc = reflect.ValueOf(cache.MetaNamespaceIndexFunc).Pointer()

// isMetaNamespaceIndexFunc recognises cache.MetaNamespaceIndexFunc itself
// (not a wrapper around it) by its entry point; called once per indexer at
// construction, never per write.
func isMetaNamespaceIndexFunc(fn cache.IndexFunc) bool {
	return fn != nil && reflect.ValueOf(fn).Pointer() == metaNamespaceIndexFunc
}

func (f *indexFn) indexName() string { return f.name }

// values evaluates the IndexFunc for the object stored under key; a nil
// object (client-go stores it) has no values. The result may be f's buffer:
// it is valid until the next call and must not be modified (an IndexFunc
// may return a shared slice too). Only the store's writer calls values;
// readers (Index) call fn.
func (f *indexFn) values(key string, obj any) ([]string, error) {
	if obj == nil {
		return nil, nil
	}
	if f.namespace {
		// cache.MetaNamespaceIndexFunc, minus the allocation. Objects
		// without metadata take the slow path below for client-go's error.
		if m, err := meta.Accessor(obj); err == nil {
			f.buf[0] = m.GetNamespace()
			return f.buf[:], nil
		}
	}
	vs, err := f.fn(obj)
	if err != nil {
		return nil, &IndexError{Key: key, Index: f.name, Err: err}
	}
	return vs, nil
}

// named is a column of either kind.
type named interface {
	indexName() string
	values(key string, obj any) ([]string, error)
}

// findCol returns the column called name, or the zero C. A linear scan beats
// a map for the handful of indexers an informer has.
func findCol[C named](cols []C, name string) C {
	for _, c := range cols {
		if c.indexName() == name {
			return c
		}
	}
	var zero C
	return zero
}

// evalAll evaluates every column's IndexFunc for obj into scratch, before a
// write changes anything; on error scratch is cleared and the error returned.
func evalAll[C named](cols []C, scratch [][]string, key string, obj any) error {
	for i, c := range cols {
		vs, err := c.values(key, obj)
		if err != nil {
			clear(scratch[:i])
			return err
		}
		scratch[i] = vs
	}
	return nil
}

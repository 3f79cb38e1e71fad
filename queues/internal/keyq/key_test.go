package keyq

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// TestKeyFuncAgreesWithClientGo: the fast paths return exactly what the
// key function they stand for returns, errors included.
func TestKeyFuncAgreesWithClientGo(t *testing.T) {
	objs := []any{
		&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}},
		&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "cluster-scoped"}},
		cache.ExplicitKey("explicit/key"),
		cache.DeletedFinalStateUnknown{Key: "ns/gone", Obj: nil},
		struct{ NotAnObject int }{1},
	}
	custom := func(obj any) (string, error) {
		if _, ok := obj.(cache.ExplicitKey); ok {
			return "", errors.New("no explicit keys here")
		}
		return "custom", nil
	}
	for _, fn := range []cache.KeyFunc{nil, cache.MetaNamespaceKeyFunc, cache.DeletionHandlingMetaNamespaceKeyFunc, custom} {
		ref := fn
		if ref == nil {
			ref = cache.MetaNamespaceKeyFunc
		}
		kf := NewKeyFunc(fn)
		for _, o := range objs {
			want, wantErr := ref(o)
			var scratch [ScratchSize]byte
			ks, kb, err := kf.Key(o, scratch[:0])
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Errorf("%#v: err %v, want %v", o, err, wantErr)
				continue
			}
			if got := KeyString(ks, kb); err == nil && got != want {
				t.Errorf("%#v: key %q, want %q", o, got, want)
			}
		}
	}
}

func TestKeyIs(t *testing.T) {
	for _, tc := range []struct {
		key, ks string
		kb      []byte
		want    bool
	}{
		{"ns/a", "ns/a", nil, true},
		{"ns/a", "", []byte("ns/a"), true},
		{"ns/a", "ns/b", nil, false},
		{"ns/a", "ns/a", []byte("ns/b"), false}, // bytes win when present
	} {
		if got := keyIs(tc.key, tc.ks, tc.kb); got != tc.want {
			t.Errorf("keyIs(%q, %q, %q) = %v", tc.key, tc.ks, tc.kb, got)
		}
	}
}

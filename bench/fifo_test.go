package bench

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/testobj"
)

// nopProcess is a Pop process function that does nothing (a package-level
// value, so no benchmark pays for a closure).
var nopProcess cache.PopProcessFunc = func(any, bool) error { return nil }

// BenchmarkFIFO measures the FIFO family, client-go's included.
//
// op=add-pop: one Add and one Pop of a key among 1024, the steady state of
// a consumer keeping up with its producer. Every key has been through the
// queue once before the timer starts.
func BenchmarkFIFO(b *testing.B) {
	objs := testobj.Population(1024, 16, 8)
	b.Run("op=add-pop/keys=1024", func(b *testing.B) {
		for _, e := range registry.FIFOs() {
			b.Run("impl="+e.Name, func(b *testing.B) { benchAddPop(b, e.New(cache.MetaNamespaceKeyFunc), objs) })
		}
	})
}

// benchAddPop times one Add and one Pop of objs' keys in turn (len(objs) a
// power of two), on q after every key has been through it once.
func benchAddPop[T any](b *testing.B, q cache.Queue, objs []T) {
	defer q.Close()
	for _, o := range objs {
		_ = q.Add(o)
		_, _ = q.Pop(nopProcess)
	}
	mask := len(objs) - 1
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := q.Add(objs[i&mask]); err != nil {
			b.Fatal(err)
		}
		if _, err := q.Pop(nopProcess); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

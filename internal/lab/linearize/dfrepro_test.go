// Regression test for the checker's DeltaFIFO finding in queuelab's
// layouts (fixed: a write marks the queue populated under the key's lock).
package linearize

import (
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/deltafifo"
)

// parkingKnown is KnownObjects whose first ListKeys, which Replace calls
// with its locks held, parks until released.
// hit is closed when that call has begun.
type parkingKnown struct {
	cache.Store
	once         sync.Once
	hit, release chan struct{}
}

func (k *parkingKnown) ListKeys() []string {
	k.once.Do(func() {
		close(k.hit)
		<-k.release
	})
	return k.Store.ListKeys()
}

// TestDeltaFIFOWriteRacingFirstReplace: the first Replace lists k1 and
// holds its locks; meanwhile an Add of k2 starts. In client-go the Add
// waits for the lock before it marks the queue populated, so the Replace
// is the initial population and Pop hands k1 over with isInInitialList.
// queuelab's write used to mark the queue populated before taking the
// key's lock (HasSynced turned true while the Replace still ran, and the
// Replace, seeing a populated queue, recorded no initial population); it
// now marks it under the lock, as client-go does.
func TestDeltaFIFOWriteRacingFirstReplace(t *testing.T) {
	for name, newQ := range map[string]func(cache.DeltaFIFOOptions) cache.Queue{
		registry.Baseline: func(o cache.DeltaFIFOOptions) cache.Queue { return cache.NewDeltaFIFOWithOptions(o) },
		"mutex": func(o cache.DeltaFIFOOptions) cache.Queue {
			return registry.Must(deltafifo.NewMutex(deltafifo.Options{DeltaFIFOOptions: o}))
		},
		"sharded": func(o cache.DeltaFIFOOptions) cache.Queue {
			return registry.Must(deltafifo.NewSharded(deltafifo.Options{DeltaFIFOOptions: o}))
		},
		"ring": func(o cache.DeltaFIFOOptions) cache.Queue {
			return registry.Must(deltafifo.NewRing(deltafifo.Options{DeltaFIFOOptions: o}))
		},
	} {
		t.Run(name, func(t *testing.T) {
			known := &parkingKnown{Store: cache.NewStore(FIFOKeyFunc), hit: make(chan struct{}), release: make(chan struct{})}
			q := newQ(DeltaFIFOOptions(known))
			defer q.Close()
			replaced := make(chan struct{})
			go func() {
				defer close(replaced)
				_ = q.Replace([]any{&storeObj{key: 1, ver: 1}}, "")
			}()
			<-known.hit // the Replace holds its locks
			added := make(chan struct{})
			go func() {
				defer close(added)
				_ = q.Add(&storeObj{key: 2, ver: 2})
			}()
			// An Add that marked the queue populated before the lock
			// would close Done at once (populated, nothing initial);
			// a correct one waits for the lock, so give it a moment and
			// go on.
			earlySync := false
			select {
			case <-q.(cache.DoneChecker).Done():
				earlySync = true
			case <-time.After(200 * time.Millisecond):
			}
			close(known.release)
			<-replaced
			<-added
			// Both keys come out (in either order: sharded keeps order
			// per shard only); k1 is the initial population, k2 is not.
			initial := map[string]bool{}
			for range 2 {
				got, err := q.Pop(func(obj any, isInInitialList bool) error {
					k, _ := FIFOKeyFunc(obj.(cache.Deltas).Newest().Object)
					initial[k] = isInInitialList
					return nil
				})
				if err != nil {
					t.Fatal(err, got)
				}
			}
			if !initial["k1"] || initial["k2"] || earlySync {
				t.Errorf("isInInitialList k1=%v k2=%v, synced while the first Replace ran = %v; want true, false, false", initial["k1"], initial["k2"], earlySync)
			}
		})
	}
}

package bench

import (
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer/consumer"
	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/inorder/inordertest"
	"github.com/queuelab/queuelab/stores"
)

// BenchmarkInOrderFIFO measures the in-order FIFO family against client-go's
// RealFIFO as every v0.37 informer builds it (clientgo: atomic events,
// unlock-while-processing, bookmarks) and in its non-atomic mode
// (clientgo-nonatomic). Each entry runs in the mode informers use when it
// has it (atomic), else per-object with the consumer's store as
// KnownObjects. The consumer is queuelab's (informer/consumer, the
// semantics of client-go's processDeltasInBatch and processReplacedAllInfo)
// and the store is stores.Mutex behind stores.Indexer, the same for every
// queue, so the rows differ by the queue alone.
//
//   - op=add-pop: one Add and one Pop of a key among 1024 (every key has
//     been through the queue once), as in BenchmarkFIFO.
//   - op=replace: a relist of objects=n as an informer lives it: Replace,
//     then the consumer pops and applies it to a store already holding the
//     n objects. Iterations alternate between the full list and one missing
//     every hundredth object, so every relist updates 99% of the store and
//     either deletes or re-adds 1%.
//   - op=pipeline: producers goroutines Add, Update and Delete each of
//     objects=10000 objects (30000 events) while one long-lived consumer
//     applies them with PopBatch; the op ends when all 30000 are applied.
//     Reports events/s. The store apply is the same for every queue, so it
//     bounds the ratios from above.
func BenchmarkInOrderFIFO(b *testing.B) {
	b.Run("op=add-pop/keys=1024", benchInOrderAddPop)
	b.Run("op=replace/objects=100000", func(b *testing.B) { benchInOrderReplace(b, 100_000) })
	for _, p := range []int{1, 8} {
		b.Run("op=pipeline/producers="+strconv.Itoa(p)+"/objects=10000", func(b *testing.B) { benchInOrderPipeline(b, p, 10_000) })
	}
}

// newInOrder builds e's queue in the mode informers use when e has it, over
// known as KnownObjects otherwise.
func newInOrder(b *testing.B, e registry.Entry[func(inorder.Options) (inorder.Queue, error), inordertest.Guarantees], known cache.KeyListerGetter) inorder.Queue {
	opts := inorder.Options{}
	if !e.Guarantees.Atomic {
		opts.KnownObjects = known
	}
	q, err := e.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	return q
}

// informerStore is the store every row's consumer writes to.
func informerStore() *stores.Indexer {
	st, err := stores.NewMutex(stores.Options{Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}})
	if err != nil {
		panic(err) // fixed, valid options
	}
	return stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, st)
}

func benchInOrderAddPop(b *testing.B) {
	objs := testobj.Population(1024, 16, 8)
	for _, e := range registry.InOrderFIFOs() {
		b.Run("impl="+e.Name, func(b *testing.B) {
			benchAddPop(b, newInOrder(b, e, cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)), objs)
		})
	}
}

func benchInOrderReplace(b *testing.B, n int) {
	objs := testobj.Population(n, 16, 8)
	full := make([]any, n)
	var partial []any
	for i, o := range objs {
		full[i] = o
		if i%100 != 0 {
			partial = append(partial, o)
		}
	}
	for _, e := range registry.InOrderFIFOs() {
		b.Run("impl="+e.Name, func(b *testing.B) {
			store := informerStore()
			var applied int64
			batch, single := newApplier(b, store, func(n int) { applied += int64(n) }).funcs()
			q := newInOrder(b, e, store)
			defer q.Close()
			stored := 0 // objects in the store: the previous list's length
			relist := func(list []any) {
				// One ReplacedAll event in atomic mode; in per-object mode
				// one event per listed object plus a tombstone per stored
				// key the list lacks (the lists are nested, so that is the
				// larger of the two sizes). The stored count is tracked
				// rather than asked of the store, whose ListKeys would copy
				// every key inside the timed loop.
				want := int64(1)
				if !e.Guarantees.Atomic {
					want = int64(max(len(list), stored))
				}
				want += applied
				if err := q.Replace(list, "1"); err != nil {
					b.Fatal(err)
				}
				for applied < want {
					if err := q.PopBatch(batch, single); err != nil {
						b.Fatal(err)
					}
				}
				stored = len(list)
			}
			relist(full) // the initial list
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					relist(partial)
				} else {
					relist(full)
				}
				i++
			}
			if got := len(store.ListKeys()); got != stored {
				b.Fatalf("store holds %d objects after the relists, want %d", got, stored)
			}
		})
	}
}

func benchInOrderPipeline(b *testing.B, producers, n int) {
	objs := testobj.Population(n, 16, 8)
	for _, e := range registry.InOrderFIFOs() {
		b.Run("impl="+e.Name, func(b *testing.B) {
			store := informerStore()
			q := newInOrder(b, e, store)
			p := newQueuePipeline(q)
			batch, single := newApplier(b, store, p.count).funcs()
			p.run(func() error { return q.PopBatch(batch, single) })
			p.measure(b, objs, producers)
		})
	}
}

// applier is the lab's consumer reporting how many events it applied
// (every event of a batch, one per single pop).
type applier struct {
	c     *consumer.Consumer
	count func(n int)
}

func newApplier(b *testing.B, store cache.Store, count func(n int)) applier {
	c, err := consumer.New(consumer.Options{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	return applier{c: c, count: count}
}

// funcs returns a's process functions as values bound once: a method value
// taken at each PopBatch call would allocate two closures per pop in the
// timed loop.
func (a applier) funcs() (cache.ProcessBatchFunc, cache.PopProcessFunc) {
	return a.batch, a.single
}

func (a applier) batch(ds []cache.Delta, initial bool) error {
	err := a.c.ProcessBatch(ds, initial)
	a.count(len(ds))
	return err
}

func (a applier) single(item any, initial bool) error {
	err := a.c.Process(item, initial)
	a.count(len(item.(cache.Deltas)))
	return err
}

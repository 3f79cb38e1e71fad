package bench

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/queues/deltafifo/deltafifotest"
)

// BenchmarkDeltaFIFO measures the DeltaFIFO family, client-go's DeltaFIFO
// and (as a peer) its RealFIFO included. Every op runs on a queue that has
// already seen its keys (an informer's steady state), with
// KnownObjects a store keyed like an informer's indexer.
//
//   - op=add-pop: one Add and one Pop of a key among 1024.
//   - op=replace: a relist of objects=n against a KnownObjects store of
//     known=n, 1% of whose keys are missing from the list (so 1% tombstones),
//     then the consumer popping all n keys. The drain is part of the op: a
//     relist is not over until the consumer has taken it, and only a drained
//     queue makes every iteration the same relist (a queue left full would
//     make the next Replace append to pending keys instead). The list and
//     the store are built before the timer starts; the list is reused
//     (no Transformer is set, so no implementation writes to it).
//   - op=resync: a Resync of a 100000-object KnownObjects store, then the
//     drain of the 100000 Sync deltas, for the same reason.
//   - op=pipeline: producers goroutines Add, Update and Delete each of
//     objects=10000 objects (30000 events) while one long-lived consumer
//     Pops and applies the deltas to KnownObjects as an informer does; the
//     op ends when the consumer has applied all 30000. Reports events/s.
//     The consumer's store work is the same for every queue, so it bounds
//     the ratios from above; that is the honest setting for an informer.
func BenchmarkDeltaFIFO(b *testing.B) {
	b.Run("op=add-pop/keys=1024", benchDeltaAddPop)
	for _, n := range []int{10_000, 100_000} {
		b.Run("op=replace/objects="+strconv.Itoa(n)+"/known="+strconv.Itoa(n), func(b *testing.B) { benchDeltaReplace(b, n) })
	}
	b.Run("op=resync/objects=100000", func(b *testing.B) { benchDeltaResync(b, 100_000) })
	for _, p := range []int{1, 8} {
		b.Run("op=pipeline/producers="+strconv.Itoa(p)+"/objects=10000", func(b *testing.B) { benchDeltaPipeline(b, p, 10_000) })
	}
}

func benchDeltaAddPop(b *testing.B) {
	objs := testobj.Population(1024, 16, 8)
	for _, e := range registry.DeltaFIFOs() {
		b.Run("impl="+e.Name, func(b *testing.B) { benchAddPop(b, e.New(cache.DeltaFIFOOptions{}), objs) })
	}
}

// relistFixture returns an informer-like store holding objs, and the
// relist of them with every hundredth missing.
func relistFixture[T any](objs []T) (cache.Store, []any) {
	known := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	list := make([]any, 0, len(objs))
	for i, o := range objs {
		_ = known.Add(o)
		if i%100 != 0 {
			list = append(list, o)
		}
	}
	return known, list
}

// drainN pops n items, failing b on any error.
func drainN(b *testing.B, q cache.Queue, n int) {
	for range n {
		if _, err := q.Pop(nopProcess); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDeltaReplace(b *testing.B, n int) {
	known, list := relistFixture(testobj.Population(n, 16, 8))
	for _, e := range registry.DeltaFIFOs() {
		b.Run("impl="+e.Name, func(b *testing.B) {
			q := e.New(cache.DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: true})
			defer q.Close()
			relist := func() {
				if err := q.Replace(list, "1"); err != nil {
					b.Fatal(err)
				}
				drainN(b, q, n) // 99% listed, 1% tombstones
			}
			relist() // the initial list: the queue now knows every key
			b.ReportAllocs()
			for b.Loop() {
				relist()
			}
		})
	}
}

func benchDeltaResync(b *testing.B, n int) {
	known, _ := relistFixture(testobj.Population(n, 16, 8))
	for _, e := range registry.DeltaFIFOs() {
		b.Run("impl="+e.Name, func(b *testing.B) {
			q := e.New(cache.DeltaFIFOOptions{KnownObjects: known})
			defer q.Close()
			resync := func() {
				if err := q.Resync(); err != nil {
					b.Fatal(err)
				}
				drainN(b, q, n)
			}
			resync()
			b.ReportAllocs()
			for b.Loop() {
				resync()
			}
		})
	}
}

func benchDeltaPipeline(b *testing.B, producers, n int) {
	objs := testobj.Population(n, 16, 8)
	for _, e := range registry.DeltaFIFOs() {
		b.Run("impl="+e.Name, func(b *testing.B) {
			startDeltaPipeline(e.New).measure(b, objs, producers)
		})
	}
}

// eventsPerObject: a pipeline round adds, updates and deletes every object.
const eventsPerObject = 3

// queuePipeline is an informer-shaped pair of ends around one queue: producers
// write, one long-lived consumer pops and applies, counting what it applied
// so a round knows when every event it wrote has been through.
type queuePipeline struct {
	q        cache.Queue
	applied  atomic.Int64 // events the consumer has applied
	target   atomic.Int64 // events written so far
	progress chan struct{}
	consumed chan error
}

func newQueuePipeline(q cache.Queue) *queuePipeline {
	return &queuePipeline{q: q, progress: make(chan struct{}, 1), consumed: make(chan error, 1)}
}

// count records n events applied, waking the round once it has them all.
func (p *queuePipeline) count(n int) {
	if p.applied.Add(int64(n)) >= p.target.Load() {
		select {
		case p.progress <- struct{}{}:
		default:
		}
	}
}

// run starts the consumer: pop until the queue is closed.
func (p *queuePipeline) run(pop func() error) {
	go func() {
		for {
			if err := pop(); err != nil {
				if errors.Is(err, cache.ErrFIFOClosed) {
					err = nil
				}
				p.consumed <- err
				return
			}
		}
	}()
}

// startDeltaPipeline's consumer pops and applies the deltas to the queue's
// KnownObjects (so no deletion is ever ignored, and every event ends up as
// exactly one applied delta).
func startDeltaPipeline(newQ func(cache.DeltaFIFOOptions) cache.Queue) *queuePipeline {
	known := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	p := newQueuePipeline(newQ(cache.DeltaFIFOOptions{KnownObjects: known}))
	apply := func(item any, _ bool) error {
		ds := item.(cache.Deltas)
		err := deltafifotest.ApplyDeltas(known, ds)
		p.count(len(ds))
		return err
	}
	p.run(func() error {
		_, err := p.q.Pop(apply)
		return err
	})
	return p
}

// round has producers goroutines Add, Update and Delete their share of
// objs, and returns once the consumer has applied every resulting event.
func (p *queuePipeline) round(b *testing.B, objs []*metav1.PartialObjectMetadata, producers int) {
	want := p.target.Add(int64(eventsPerObject * len(objs)))
	produce(b, p.q, objs, producers)
	for p.applied.Load() < want {
		select {
		case <-p.progress:
		case err := <-p.consumed:
			b.Fatalf("consumer stopped: %v", err)
		}
	}
}

// produce has producers goroutines Add, Update and Delete their share of
// objs in q (eventsPerObject events per object), and returns when all have
// written.
func produce(b *testing.B, q cache.ReflectorStore, objs []*metav1.PartialObjectMetadata, producers int) {
	var wg sync.WaitGroup
	per := (len(objs) + producers - 1) / producers
	for i := range producers {
		share := objs[min(i*per, len(objs)):min((i+1)*per, len(objs))]
		wg.Go(func() {
			for _, o := range share {
				if q.Add(o) != nil || q.Update(o) != nil || q.Delete(o) != nil {
					b.Error("write failed")
					return
				}
			}
		})
	}
	wg.Wait()
}

// measure times rounds of objs through p after a warm-up round (the queue
// and the store have then seen every key), reports events/s, and stops p.
func (p *queuePipeline) measure(b *testing.B, objs []*metav1.PartialObjectMetadata, producers int) {
	defer p.stop(b)
	p.round(b, objs, producers)
	b.ReportAllocs()
	for b.Loop() {
		p.round(b, objs, producers)
	}
	b.ReportMetric(float64(eventsPerObject*len(objs)*b.N)/b.Elapsed().Seconds(), "events/s")
}

func (p *queuePipeline) stop(b *testing.B) {
	p.q.Close()
	if err := <-p.consumed; err != nil {
		b.Fatal(err)
	}
}

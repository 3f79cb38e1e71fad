package bench

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/loadgen/pipeline"
)

// informerObjects is BenchmarkInformerContention's population: the size at
// which client-go's own benchmark sees its writer starve behind listers.
const informerObjects = 40_000

// contentionShape is one way readers list an informer's store while its
// writer applies the watch.
type contentionShape struct {
	name     string
	pop      func() *storePopulation
	indexers func() cache.Indexers
	// read is one lister round; it returns how many objects it saw and
	// how many it should have.
	read func(store cache.Indexer, p *storePopulation, rng *rand.Rand) (got, want int, err error)
}

// contentionShapes: client-go's BenchmarkSharedIndexInformer (every object
// in one namespace, a read is ListAllByNamespace over all of them, the
// namespace index only) and the lab's lister mix (100 namespaces, a read is
// ListAllByNamespace of a random one, ListAll and a Get).
var contentionShapes = []contentionShape{
	{
		name: "clientgo",
		pop: sync.OnceValue(func() *storePopulation {
			return newStorePopulation(informerObjects, 1)
		}),
		indexers: func() cache.Indexers { return cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc} },
		read: func(store cache.Indexer, p *storePopulation, _ *rand.Rand) (int, int, error) {
			n := 0
			err := cache.ListAllByNamespace(store, "ns-0", labels.Everything(), func(any) { n++ })
			return n, len(p.keys), err
		},
	},
	{
		name:     "lab",
		pop:      scanPopulation,
		indexers: testobj.Indexers,
		read: func(store cache.Indexer, p *storePopulation, rng *rand.Rand) (int, int, error) {
			n := 0
			count := func(any) { n++ }
			err := errors.Join(
				cache.ListAllByNamespace(store, namespaces[rng.IntN(len(namespaces))], labels.Everything(), count),
				cache.ListAll(store, labels.Everything(), count))
			if _, ok, _ := store.GetByKey(p.keys[rng.IntN(len(p.keys))]); ok {
				n++
			}
			total := len(p.keys)
			return n, total + total/len(namespaces) + 1, err
		},
	},
}

// contentionStacks are the informers compared besides "default" (the
// drop-in built with zero informer.Options, which every run carries):
// client-go's shipped informer ("clientgo+clientgo", the baseline) and the
// drop-in over the candidates' <store>+<fifo> (mutex+inorder-mutex, and the
// lock-free store under each queue family), built by
// pipeline.Stack.NewInformer; -contention.impls picks others ("all": every
// store and FIFO name).
var contentionStacks = flag.String("contention.impls", "clientgo,mutex+inorder-mutex,lockfree+clientgo,lockfree+inorder-mutex,lockfree+inorder-lockfree,lockfree+deltafifo-mutex",
	"BenchmarkInformerContention: the <store>+<fifo> stacks to compare, as `queuelab run --impl` takes them for the store pipeline")

// BenchmarkInformerContention (issues 7 and 17) is client-go's
// BenchmarkSharedIndexInformer over the lab's informers: one writer
// modifying objects through a watch (a FakeWatcher feeding the informer's
// Reflector, FIFO, store and handler) while readers goroutines list the
// store. A write counts when the handler hears of it, once applied to the
// store; the writer keeps at most informerInFlight modifications between
// its Modify and that point, as client-go's benchmark does, so writes/s is
// the end-to-end apply rate through the informer, not the enqueue rate.
//
// Each b.Loop iteration is a fixed measuring window (contendRates), so the
// rates are the result and ns/op, the window, is suppressed.
func BenchmarkInformerContention(b *testing.B) {
	stacks, err := pipeline.Default().Select(pipeline.Store, *contentionStacks)
	if err != nil {
		b.Fatal(err)
	}
	type candidate struct {
		name  string
		build func(cache.ListerWatcher, runtime.Object, pipeline.InformerOptions) (pipeline.InformerPath, error)
	}
	candidates := []candidate{}
	for _, st := range stacks {
		candidates = append(candidates, candidate{st.Name(pipeline.Store), st.NewInformer})
		if st.IsBaseline(pipeline.Store) {
			candidates = append(candidates, candidate{"default", pipeline.NewDefaultInformer})
		}
	}
	for _, shape := range contentionShapes {
		for _, readers := range []int{0, 1, 10} {
			b.Run("shape="+shape.name+"/objects="+strconv.Itoa(informerObjects)+"/readers="+strconv.Itoa(readers), func(b *testing.B) {
				for _, c := range candidates {
					b.Run("impl="+c.name, func(b *testing.B) {
						b.ReportAllocs()
						inf := startInformer(b, c.build, shape)
						contendRates(b, readers, inf.read, inf.write, &inf.writes)
						inf.stop(b)
						b.ReportMetric(0, "ns/op")
					})
				}
			})
		}
	}
}

// informerInFlight is how many modifications the writer may have sent but
// not yet seen applied (client-go's benchmark: 10).
const informerInFlight = 10

// informer is one informer under test, the watch that feeds it and the
// books of the measurement.
type informer struct {
	p       *storePopulation
	shape   contentionShape
	order   []int // the writer's key order, a permutation
	watcher *watch.FakeWatcher
	store   cache.Indexer

	writes   atomic.Int64  // modifications applied and notified
	inFlight chan struct{} // one token per modification not yet applied
	added    atomic.Int64  // initial objects notified
	synced   chan struct{} // closed when all of them are
	failed   atomic.Pointer[error]
	broken   chan struct{} // closed on the first failure
	cancel   context.CancelFunc
	done     chan struct{} // the informer returned
}

var _ cache.ResourceEventHandler = (*informer)(nil)

// startInformer builds stack st's informer over a FakeWatcher and a List
// of the shape's population at version 0, runs it, and waits until the
// handler has heard of every listed object.
func startInformer(b *testing.B, build func(cache.ListerWatcher, runtime.Object, pipeline.InformerOptions) (pipeline.InformerPath, error), shape contentionShape) *informer {
	p := shape.pop()
	inf := &informer{
		p:        p,
		shape:    shape,
		order:    rand.New(rand.NewPCG(7, 11)).Perm(len(p.keys)),
		watcher:  watch.NewFakeWithChanSize(1, false),
		inFlight: make(chan struct{}, informerInFlight),
		synced:   make(chan struct{}),
		broken:   make(chan struct{}),
		done:     make(chan struct{}),
	}
	list := &metav1.PartialObjectMetadataList{Items: make([]metav1.PartialObjectMetadata, len(p.keys))}
	for i, o := range p.versions[0] {
		list.Items[i] = *o
	}
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) { return list, nil },
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return inf.watcher, nil
		},
	}, listThenWatch{})
	run, err := build(lw, &metav1.PartialObjectMetadata{}, pipeline.InformerOptions{
		Indexers: shape.indexers(),
		Handler:  inf,
	})
	if err != nil {
		b.Fatal(err)
	}
	inf.store = run.GetIndexer()
	ctx, cancel := context.WithCancel(context.Background())
	inf.cancel = cancel
	go func() {
		defer close(inf.done)
		run.RunWithContext(ctx)
	}()
	select {
	case <-inf.synced:
	case <-inf.broken:
		inf.stop(b)
	}
	return inf
}

// listThenWatch opts the Reflector out of WatchList (streaming lists, on by
// default in client-go v0.37): the FakeWatcher speaks list-then-watch.
type listThenWatch struct{}

// IsWatchListSemanticsUnSupported is what client-go's
// watchlist.DoesClientNotSupportWatchListSemantics consults.
func (listThenWatch) IsWatchListSemanticsUnSupported() bool { return true }

// write is the writer's i-th modification: version (i/n+1)%2 of the i-th
// key in the writer's order, once fewer than informerInFlight are pending.
// After a failure it writes nothing: a modification the informer failed
// to apply never frees its slot.
func (inf *informer) write(i int) {
	select {
	case inf.inFlight <- struct{}{}:
	case <-inf.broken:
		return
	}
	n := len(inf.order)
	inf.watcher.Modify(inf.p.versions[(i/n+1)%2][inf.order[i%n]])
}

// read is one lister round of the shape; a short result means the store
// lost objects.
func (inf *informer) read(rng *rand.Rand, _ int) {
	got, want, err := inf.shape.read(inf.store, inf.p, rng)
	switch {
	case err != nil:
		inf.fail(err)
	case got != want:
		inf.fail(errReadLost)
	}
}

var (
	errReadLost   = errors.New("a read found fewer objects than were stored")
	errUnexpected = errors.New("the informer reported a deletion; the writer only modifies")
)

// OnAdd counts the initial sync.
func (inf *informer) OnAdd(any, bool) {
	if inf.added.Add(1) == int64(len(inf.p.keys)) {
		close(inf.synced)
	}
}

// OnUpdate is a write applied: it frees one in-flight slot.
func (inf *informer) OnUpdate(_, _ any) {
	inf.writes.Add(1)
	<-inf.inFlight
}

// OnDelete never happens here.
func (inf *informer) OnDelete(any) { inf.fail(errUnexpected) }

// fail records the first error, which stop reports.
func (inf *informer) fail(err error) {
	if inf.failed.CompareAndSwap(nil, &err) {
		close(inf.broken)
	}
}

// stop ends the informer (the writer has stopped, so no Modify races the
// watcher's close) and fails b if anything failed.
func (inf *informer) stop(b *testing.B) {
	inf.cancel()
	<-inf.done
	if err := inf.failed.Load(); err != nil {
		b.Fatal(*err)
	}
}

// contendRates runs readers goroutines calling read in a loop and one
// writer goroutine calling write(0), write(1), … while writes counts the
// writes done (by write itself, or by whoever completes them), and reports
// reads/s and writes/s. Each b.Loop iteration is a fixed measuring window
// (contendWindow) rather than one operation: with many goroutines on few
// Ps, an operation's cost depends on scheduler time slices, and b.Loop
// would size its rounds from ones that happened to run uncontended. So
// ns/op here is the window; the rates are the result.
func contendRates(b *testing.B, readers int, read func(rng *rand.Rand, i int), write func(i int), writes *atomic.Int64) {
	var reads atomic.Int64
	var stop atomic.Bool
	var ready, wg sync.WaitGroup
	ready.Add(readers + 1)
	for r := range readers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 3))
			ready.Done()
			for i := 0; !stop.Load(); i++ {
				read(rng, i)
				reads.Add(1)
			}
		})
	}
	wg.Go(func() {
		ready.Done()
		for i := 0; !stop.Load(); i++ {
			write(i)
		}
	})
	ready.Wait()
	r0, w0 := reads.Load(), writes.Load()
	for b.Loop() {
		time.Sleep(contendWindow)
	}
	r1, w1 := reads.Load(), writes.Load()
	elapsed := b.Elapsed().Seconds()
	stop.Store(true)
	wg.Wait()
	b.ReportMetric(float64(r1-r0)/elapsed, "reads/s")
	b.ReportMetric(float64(w1-w0)/elapsed, "writes/s")
}

// contendWindow is one measuring window of contendRates.
const contendWindow = 5 * time.Millisecond

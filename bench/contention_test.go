package bench

import (
	"errors"
	"flag"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/deltafifo/consumer"
	"github.com/queuelab/queuelab/queues/registry"
	"github.com/queuelab/queuelab/stores"
)

// informerPopulations are BenchmarkInformerContention's sizes, built on
// first use.
var informerPopulations = map[int]func() *storePopulation{
	10_000: sync.OnceValue(func() *storePopulation { return newStorePopulation(10_000) }),
	40_000: scanPopulation,
}

// contentionAll widens BenchmarkInformerContention to every combination in
// every cell (96 leaves of about -benchtime each: 13 minutes at -count 6).
var contentionAll = flag.Bool("contention.all", false, "BenchmarkInformerContention: every store × DeltaFIFO combination at every size and reader count")

// The combinations BenchmarkInformerContention runs in every cell: the
// baseline, and the recommended informer (a store whose scans never block
// its writer, and a DeltaFIFO in global FIFO order with PopBatch).
const (
	contentionBaseline    = registry.Baseline + "+" + registry.Baseline
	contentionRecommended = "lockfree+ring"
)

// BenchmarkInformerContention (issue 7) is client-go's
// BenchmarkSharedIndexInformer over store × DeltaFIFO combinations: one
// writer path — a producer playing the Reflector (Update into the
// DeltaFIFO) and a consumer Popping (PopBatch where the queue has it) and
// applying the deltas with processDeltas semantics to a stores.Indexer
// (one Transaction per batch) — while readers goroutines list. A write
// counts once the consumer has applied it to the store, where every reader
// can see it; the producer keeps at most informerInFlight updates between
// its Update and that point, as client-go's benchmark does, so writes/s is
// the end-to-end apply rate, not the enqueue rate.
//
// One read is what a controller's listers do: ListAllByNamespace of a
// random namespace through the namespace index (objects/100 objects),
// ListAll of the whole store and a Get. The objects are those of the
// store benchmarks (storePopulation); the store is filled through the
// DeltaFIFO (Replace, then the consumer) before anything is measured.
//
// As in BenchmarkStoreScanContention, each b.Loop iteration is a fixed
// measuring window (see contendRates), so ns/op is the window and the
// rates are the result. That also means every leaf runs for -benchtime
// whatever the window, so the matrix is sized to the lab's time budget:
// every store × DeltaFIFO combination where issue 7 is decided
// (objects=40000, readers=10), and the baseline and the recommended
// combination in the other cells; -contention.all runs every combination
// everywhere (BenchmarkStore and BenchmarkDeltaFIFO already show each
// family's cost when nobody lists).
//
// client-go's RealFIFO, a peer of the DeltaFIFO family, is left out: as
// registered, its Pop holds its lock across process just as DeltaFIFO's
// does, and it would add a quarter to the time.
func BenchmarkInformerContention(b *testing.B) {
	for _, n := range []int{10_000, 40_000} {
		for _, readers := range []int{0, 1, 10} {
			every := *contentionAll || (n == 40_000 && readers == 10)
			b.Run("objects="+strconv.Itoa(n)+"/readers="+strconv.Itoa(readers), func(b *testing.B) {
				p := informerPopulations[n]()
				for _, st := range stores.Impls {
					for _, f := range deltafifo.Impls {
						name := st.Name + "+" + f.Name
						if f.Guarantees.Peer || !every && name != contentionBaseline && name != contentionRecommended {
							continue
						}
						b.Run("impl="+name, func(b *testing.B) {
							b.ReportAllocs()
							inf := startInformer(b, st.New, f.New, p)
							contendRates(b, readers, inf.read, inf.write, &inf.writes)
							inf.stop(b)
						})
					}
				}
			})
		}
	}
}

// informerInFlight is how many updates the producer may have written to
// the DeltaFIFO but not yet seen applied (client-go's benchmark: 10).
const informerInFlight = 10

// informer is an informer's writer path over one store and one DeltaFIFO,
// plus the readers' view of the store.
type informer struct {
	p     *storePopulation
	order []int // the producer's key order, a permutation
	q     cache.Queue
	store *stores.Indexer

	writes   atomic.Int64  // updates applied to the store
	inFlight chan struct{} // one token per update not yet applied
	added    atomic.Int64  // initial objects applied
	synced   chan struct{} // closed when all of them are
	failed   atomic.Pointer[error]
	broken   chan struct{} // closed on the first failure
	done     chan struct{} // the consumer returned
}

var _ cache.ResourceEventHandler = (*informer)(nil)

// startInformer builds the store and the DeltaFIFO, starts the consumer
// and syncs p's version 0 through the queue, as a Reflector's initial List
// does.
func startInformer(b *testing.B, newStore stores.New, newQueue deltafifo.New, p *storePopulation) *informer {
	inf := &informer{
		p:        p,
		order:    rand.New(rand.NewPCG(7, 11)).Perm(len(p.keys)),
		store:    stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, newStore(testobj.Indexers())),
		inFlight: make(chan struct{}, informerInFlight),
		synced:   make(chan struct{}),
		broken:   make(chan struct{}),
		done:     make(chan struct{}),
	}
	inf.q = newQueue(cache.DeltaFIFOOptions{
		KeyFunction:           cache.MetaNamespaceKeyFunc,
		KnownObjects:          inf.store,
		EmitDeltaTypeReplaced: true,
	})
	c := consumer.New(inf.store, inf)
	go func() {
		defer close(inf.done)
		c.Run(inf.q, true, inf.fail)
	}()
	list := make([]any, len(p.keys))
	for i, o := range p.versions[0] {
		list[i] = o
	}
	if err := inf.q.Replace(list, "1"); err != nil {
		inf.fail(err)
	}
	select {
	case <-inf.synced:
	case <-inf.broken:
		inf.stop(b)
	}
	return inf
}

// write is the producer's i-th update: version (i/n+1)%2 of the i-th key
// in the producer's order, once fewer than informerInFlight are pending.
// After a failure it writes nothing: an update the consumer failed to
// apply never frees its slot.
func (inf *informer) write(i int) {
	select {
	case inf.inFlight <- struct{}{}:
	case <-inf.broken:
		return
	}
	n := len(inf.order)
	if err := inf.q.Update(inf.p.versions[(i/n+1)%2][inf.order[i%n]]); err != nil {
		inf.fail(err)
		<-inf.inFlight
	}
}

// read is one lister round; a short result means the store lost objects.
func (inf *informer) read(rng *rand.Rand, _ int) {
	n := 0
	count := func(any) { n++ }
	if err := cache.ListAllByNamespace(inf.store, namespaces[rng.IntN(len(namespaces))], labels.Everything(), count); err != nil {
		inf.fail(err)
	}
	if err := cache.ListAll(inf.store, labels.Everything(), count); err != nil {
		inf.fail(err)
	}
	if _, ok, _ := inf.store.GetByKey(inf.p.keys[rng.IntN(len(inf.p.keys))]); !ok {
		n = -1
	}
	if total := len(inf.p.keys); n != total+total/len(namespaces) {
		inf.fail(errReadLost)
	}
}

var (
	errReadLost   = errors.New("a read found fewer objects than were stored")
	errUnexpected = errors.New("the consumer reported a deletion; the producer only updates")
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

// stop closes the queue, waits for the consumer (the producer has stopped,
// so nothing waits for an in-flight slot) and fails b if anything failed.
func (inf *informer) stop(b *testing.B) {
	inf.q.Close()
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

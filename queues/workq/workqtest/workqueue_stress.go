package workqtest

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/util/workqueue"
)

// Sizes of the concurrent properties: large enough to interleave on two
// cores under -race, small enough to finish in well under a second there.
const (
	stressKeys      = 64
	stressProducers = 4
	stressConsumers = 4
	stressAdds      = 2000 // per producer
)

// ledger is the exact accounting of a concurrent run. A global tick orders
// events: an item must be handed out by a Get that returned after the start
// of its last Add (if that Add counted), a worker must never receive an item
// another worker still holds, and no item may come out that was never added.
type ledger struct {
	keys     []string
	index    map[string]int
	tick     atomic.Int64
	added    []atomic.Bool
	lastAdd  []atomic.Int64 // tick taken before the item's last counted Add
	lastGet  []atomic.Int64 // tick taken after the item's last Get returned
	held     []atomic.Bool  // a worker holds the item (Get returned, Done not yet called)
	inflight atomic.Int64   // workers holding an item
	errs     chan error
}

func newLedger(n int) *ledger {
	l := &ledger{
		keys:    make([]string, n),
		index:   make(map[string]int, n),
		added:   make([]atomic.Bool, n),
		lastAdd: make([]atomic.Int64, n),
		lastGet: make([]atomic.Int64, n),
		held:    make([]atomic.Bool, n),
		errs:    make(chan error, 16),
	}
	for i := range l.keys {
		l.keys[i] = fmt.Sprintf("key-%d", i)
		l.index[l.keys[i]] = i
	}
	return l
}

func (l *ledger) fail(err error) {
	select {
	case l.errs <- err:
	default: // enough reported
	}
}

// add adds key i; counted reports whether the Add is one whose item must be
// processed (e.g. it completed before a drain started). Ticks are recorded
// before the Add so that an overlapping Get may satisfy it.
func (l *ledger) add(q workqueue.TypedInterface[string], i int, counted func() bool) {
	start := l.tick.Add(1)
	l.added[i].Store(true)
	q.Add(l.keys[i])
	if counted() {
		// Keep the latest start: concurrent producers may race here.
		for {
			prev := l.lastAdd[i].Load()
			if prev >= start || l.lastAdd[i].CompareAndSwap(prev, start) {
				break
			}
		}
	}
}

// work runs one consumer until Get reports shutdown.
func (l *ledger) work(q workqueue.TypedInterface[string], rng *rand.Rand) {
	for {
		item, shutdown := q.Get()
		if shutdown {
			return
		}
		l.inflight.Add(1)
		i, ok := l.index[item]
		if !ok || !l.added[i].Load() {
			l.fail(fmt.Errorf("Get handed out %q, which was never added", item))
			l.inflight.Add(-1)
			q.Done(item)
			continue
		}
		l.lastGet[i].Store(l.tick.Add(1))
		if !l.held[i].CompareAndSwap(false, true) {
			l.fail(fmt.Errorf("two workers hold %q at once", item))
		}
		if rng.IntN(4) == 0 {
			runtime.Gosched() // "process" for a while
		}
		l.held[i].Store(false)
		l.inflight.Add(-1)
		q.Done(item)
		if rng.IntN(4) == 0 {
			runtime.Gosched() // between items: lets a drain see an idle moment
		}
	}
}

// lost reports the counted Adds not followed by a Get (at most a few).
func (l *ledger) lost() []string {
	var out []string
	for i := range l.keys {
		if a := l.lastAdd[i].Load(); a > 0 && l.lastGet[i].Load() < a {
			out = append(out, fmt.Sprintf("%s: last counted Add at tick %d, last handed out at tick %d",
				l.keys[i], a, l.lastGet[i].Load()))
		}
	}
	return out
}

// verify reports the workers' errors and lost Adds; every worker must have
// exited.
func (l *ledger) verify(t *testing.T) {
	t.Helper()
	close(l.errs)
	for err := range l.errs {
		t.Error(err)
	}
	reportLost(t, l.lost())
}

func reportLost(t *testing.T, lost []string) {
	t.Helper()
	for i, s := range lost {
		if i == 5 {
			t.Errorf("... %d Adds lost in all", len(lost))
			break
		}
		t.Errorf("Add lost: %s", s)
	}
}

func always() bool { return true }

// start runs consumers (until their Gets report shutdown) and producers
// (stressAdds each) on q, and returns their wait groups.
func (l *ledger) start(q workqueue.TypedInterface[string], consumers int, counted func() bool) (producing, consuming *sync.WaitGroup) {
	producing, consuming = new(sync.WaitGroup), new(sync.WaitGroup)
	for w := range consumers {
		consuming.Go(func() { l.work(q, rand.New(rand.NewPCG(uint64(w), 7))) })
	}
	for p := range stressProducers {
		producing.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 11))
			for range stressAdds {
				l.add(q, rng.IntN(len(l.keys)), counted)
			}
		})
	}
	return producing, consuming
}

// runStress runs producers to completion, then ShutDown, then waits for the
// consumers, which by then have handed out everything.
func runStress(q workqueue.TypedInterface[string], l *ledger) {
	producing, consuming := l.start(q, stressConsumers, always)
	producing.Wait()
	q.ShutDown()
	consuming.Wait()
}

// wqNeverTwoWorkers concentrates the load on few keys so that items are
// constantly re-added while being processed.
func wqNeverTwoWorkers(t *testing.T, newQueue newStrings) {
	q := fresh(t, newQueue)
	l := newLedger(4)
	runStress(q, l)
	l.verify(t)
}

// wqHammer: many producers and consumers over a larger key space; after
// ShutDown every consumer has exited, so every Add must have been answered
// by a later Get.
func wqHammer(t *testing.T, newQueue newStrings) {
	q := fresh(t, newQueue)
	l := newLedger(stressKeys)
	runStress(q, l)
	l.verify(t)
	mustLen(t, q, 0)
}

// wqDrainStress is issue 7's property under load: producers keep adding
// while ShutDownWithDrain runs; when it returns nothing may be processing and
// every item added before it started must have been handed out since. It
// runs once with a single consumer (so that nothing is processing between
// its Done and its next Get while items wait — client-go's window) and once
// with several.
func wqDrainStress(t *testing.T, newQueue newStrings) {
	for _, consumers := range []int{1, stressConsumers} {
		q := fresh(t, newQueue)
		drainUnderLoad(t, q, consumers, true)
	}
}

// wqDrainStressClientGo is client-go's drain under the same load: it must
// return (nothing processing happens at some instant once the producers'
// Adds are refused, and the drain must not miss it), and the workers, who
// keep calling Get until it reports shutdown, must still hand out every
// item added before it. What is queued or processing when it returns is
// not checked: client-go's drain leaves queued items to Get, and a worker
// may take one the instant the drain returns.
func wqDrainStressClientGo(t *testing.T, newQueue newStrings) {
	for _, consumers := range []int{1, stressConsumers} {
		q := fresh(t, newQueue)
		drainUnderLoad(t, q, consumers, false)
	}
}

// drainUnderLoad runs ShutDownWithDrain while producers add and consumers
// work; drainsQueued checks, at its return, that nothing was left queued or
// processing.
func drainUnderLoad(t *testing.T, q workqueue.TypedInterface[string], consumers int, drainsQueued bool) {
	t.Helper()
	l := newLedger(stressKeys)
	var draining atomic.Bool
	// An Add counts if it returned before the drain began.
	counted := func() bool { return !draining.Load() }

	producers, workers := l.start(q, consumers, counted)
	// Let the producers get going, then drain while they still add.
	for l.tick.Load() < stressProducers*stressAdds/2 {
		runtime.Gosched()
	}
	draining.Store(true)
	q.ShutDownWithDrain()
	// Snapshot at the moment the drain returned.
	inflight, queued, lost := l.inflight.Load(), q.Len(), l.lost()
	producers.Wait()
	workers.Wait()
	// Without drainsQueued the drain may leave items queued (and a worker
	// may take one the instant it returns): verify below checks that they
	// were handed out after it.
	if drainsQueued {
		if inflight != 0 {
			t.Errorf("%d consumers: ShutDownWithDrain returned while %d items were still being processed", consumers, inflight)
		}
		if queued != 0 {
			t.Errorf("%d consumers: ShutDownWithDrain returned with Len() = %d", consumers, queued)
		}
		if len(lost) > 0 {
			t.Errorf("%d consumers: ShutDownWithDrain returned before %d items added before it were handed out",
				consumers, len(lost))
		}
	}
	l.verify(t)
}

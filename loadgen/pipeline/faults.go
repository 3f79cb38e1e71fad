package pipeline

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
)

// HandlerFaults make the informer pipeline's handlers misbehave at seeded
// notifications, to check that an informer keeps its contract when its
// handlers do not:
//
//   - Panics: the enqueuing handler books a notification (the ledger's
//     Applied and Deleted) and then panics instead of enqueuing. Run
//     turns utilruntime.ReallyCrash off for such a run (client-go's
//     documented switch; its listener then skips the notification and
//     sleeps a second before the next; the lab's drop-in recovers and
//     skips it either way). The panic reaches the informer rather than a
//     recover in the harness, so it is the informer's policy under test;
//     the ledger forgives exactly the skipped state (account.Ledger.Skip)
//     and still demands every other change be reconciled.
//   - Blocks: a second handler, registered after the enqueuer, sleeps for
//     Block on each chosen notification. Handlers are independent: while
//     it sleeps, the store and the enqueuer must keep receiving, so when
//     the sleep ends the enqueuer must have been notified since (or the
//     run have nothing outstanding) within isolationGrace more, or the
//     key is flagged (account.Isolation). The blocked handler must still
//     get every notification: the run drains only once it has seen as
//     many as the enqueuer, and its last notification of every key must
//     be the key's final state (account.HandlerLost).
//
// Faults land on the first notification carrying one of the
// resourceVersions drawn from the stream's seed among its watch events, so
// a run injects at most Panics and Blocks of them (fewer when a FIFO
// merges the chosen version away or a relist skips it).
type HandlerFaults struct {
	Panics int
	Blocks int
	Block  time.Duration
}

// Validate names the flag of an impossible fault.
func (f HandlerFaults) Validate() error {
	switch {
	case f.Panics < 0:
		return gen.Fieldf("handler-panics", "must be >= 0, got %d", f.Panics)
	case f.Blocks < 0:
		return gen.Fieldf("handler-blocks", "must be >= 0, got %d", f.Blocks)
	case f.Block < 0 || (f.Blocks > 0 && f.Block == 0):
		return gen.Fieldf("handler-block", "must be > 0 with --handler-blocks, got %v", f.Block)
	}
	return nil
}

// isolationGrace is, by default, how long after a blocked handler's sleep the others
// may still have had no notification before the block counts as having
// held them up: seconds on a loaded machine is already a stall.
const isolationGrace = 10 * time.Second

// handlerFaults is a run's misbehaving handlers' shared state.
type handlerFaults struct {
	e     *env
	o     HandlerFaults
	ctx   context.Context
	ended <-chan struct{} // the stream is exhausted
	// panicAt and blockAt index the chosen resourceVersions' fired flags.
	panicAt, blockAt map[uint64]*atomic.Bool
	// fast and slow count the notifications the enqueuer and the blocking
	// handler received.
	fast, slow atomic.Int64
	// view is the blocking handler's last notified state per key:
	// rv<<1 | deleted, 0 before any.
	view []atomic.Uint64
	// grace is isolationGrace (tests shorten it).
	grace time.Duration
}

// newHandlerFaults draws o's notifications from the stream; ended must be
// set before the informer runs.
func newHandlerFaults(e *env, o HandlerFaults, ctx context.Context) *handlerFaults {
	var rvs []uint64
	for _, ev := range e.stream.Events {
		if ev.Kind.IsObject() && !ev.Missed {
			rvs = append(rvs, ev.RV)
		}
	}
	rng := rand.New(rand.NewPCG(e.stream.Config.Seed, 0x4a4d))
	rng.Shuffle(len(rvs), func(i, j int) { rvs[i], rvs[j] = rvs[j], rvs[i] })
	pick := func(n int) map[uint64]*atomic.Bool {
		m := map[uint64]*atomic.Bool{}
		for ; n > 0 && len(rvs) > 0; n-- {
			m[rvs[0]] = new(atomic.Bool)
			rvs = rvs[1:]
		}
		return m
	}
	return &handlerFaults{e: e, o: o, ctx: ctx, panicAt: pick(o.Panics), blockAt: pick(o.Blocks),
		view: make([]atomic.Uint64, e.stream.Universe()), grace: isolationGrace}
}

// due reports whether obj carries a chosen version not fired yet, and
// fires it.
func due(at map[uint64]*atomic.Bool, obj any) bool {
	p := podOf(obj)
	if p == nil || len(at) == 0 {
		return false
	}
	rv, ok := gen.RV(p)
	if !ok {
		return false
	}
	f := at[rv]
	return f != nil && f.CompareAndSwap(false, true)
}

// podOf is the pod a notification carries, a tombstone's last state
// included.
func podOf(obj any) *corev1.Pod {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	p, _ := obj.(*corev1.Pod)
	return p
}

// enqueuing is called by the enqueuer for every notification it booked,
// before it enqueues; it panics on the chosen ones.
func (f *handlerFaults) enqueuing(obj any, deleted bool) {
	f.fast.Add(1)
	if !due(f.panicAt, obj) {
		return
	}
	if k, ok := keyOf(obj); ok && k < f.e.led.Keys() {
		var rv uint64
		if p := podOf(obj); p != nil {
			rv, _ = gen.RV(p)
		}
		f.e.led.Skip(k, rv, !deleted)
	}
	panic("queuelab: injected handler panic")
}

// caughtUp reports whether the blocking handler has seen every
// notification the enqueuer did.
func (f *handlerFaults) caughtUp() bool { return f.slow.Load() >= f.fast.Load() }

// drained reports whether nothing is outstanding: the stream ended and
// every change was accounted for.
func (f *handlerFaults) drained() bool {
	select {
	case <-f.ended:
	default:
		return false
	}
	return f.e.led.Uncovered() == 0 && f.e.led.OwedDeletes() <= 0
}

// checkFinal flags every key whose final state the blocking handler was
// not told last.
func (f *handlerFaults) checkFinal() {
	if f.o.Blocks == 0 {
		return
	}
	for k := range f.view {
		v := f.view[k].Load()
		rv, exists := f.e.stream.Final(k)
		if (exists && v != rv<<1) || (!exists && v != 0 && v&1 == 0) {
			f.e.led.Flag(account.HandlerLost, k)
		}
	}
}

// blocker is the second handler: it records what it is told and sleeps on
// the chosen notifications.
type blocker struct{ f *handlerFaults }

var _ cache.ResourceEventHandler = blocker{}

// OnAdd implements cache.ResourceEventHandler.
func (b blocker) OnAdd(obj any, _ bool) { b.see(obj, false) }

// OnUpdate implements cache.ResourceEventHandler.
func (b blocker) OnUpdate(_, obj any) { b.see(obj, false) }

// OnDelete implements cache.ResourceEventHandler.
func (b blocker) OnDelete(obj any) { b.see(obj, true) }

func (b blocker) see(obj any, deleted bool) {
	f := b.f
	defer f.slow.Add(1)
	k, ok := keyOf(obj)
	if !ok || k >= len(f.view) {
		return
	}
	var v uint64
	if p := podOf(obj); p != nil {
		rv, _ := gen.RV(p)
		v = rv << 1
	}
	if deleted {
		v |= 1
	}
	f.view[k].Store(v)
	if due(f.blockAt, obj) {
		f.block(k)
	}
}

// block sleeps for the fault's Block, then checks that the enqueuer was
// notified meanwhile, waiting up to isolationGrace for it unless nothing
// is outstanding.
func (f *handlerFaults) block(k int) {
	before := f.fast.Load()
	if !f.sleep(f.o.Block) {
		return
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(f.grace)
	for f.fast.Load() == before && !f.drained() {
		if time.Now().After(deadline) {
			f.e.led.Flag(account.Isolation, k)
			return
		}
		select {
		case <-tick.C:
		case <-f.ctx.Done():
			return
		}
	}
}

// sleep waits d unless the run stops first (false).
func (f *handlerFaults) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-f.ctx.Done():
		return false
	}
}

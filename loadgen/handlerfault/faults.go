// Package handlerfault makes an informer's event handlers misbehave at
// seeded notifications, to check that the informer keeps its contract
// when its handlers do not. The informer pipeline (loadgen/pipeline) and
// whole-controller runs (loadgen/controller) inject the same faults and
// keep the same books:
//
//   - Panics: the enqueuing handler books a notification (the ledger's
//     Applied and Deleted) and then panics instead of enqueuing.
//     AllowPanics turns utilruntime.ReallyCrash off for such a run
//     (client-go's documented switch; its listener then skips the
//     notification and sleeps a second before the next; the lab's drop-in
//     recovers and skips it either way). The panic reaches the informer
//     rather than a recover in the harness, so it is the informer's policy
//     under test; the ledger forgives exactly the skipped state
//     (account.Ledger.Skip) and still demands every other change be
//     reconciled.
//   - Blocks: a second handler (Injector.Blocker), registered after the
//     enqueuer, sleeps for Block on each chosen notification. Handlers are
//     independent: while it sleeps, the store and the enqueuer must keep
//     receiving, so when the sleep ends the enqueuer must have been
//     notified since (or the run have nothing outstanding) within
//     isolationGrace more, or the key is flagged (account.Isolation). The
//     blocked handler must still get every notification: the run drains
//     only once it has seen as many as the enqueuer (CaughtUp), and its
//     last notification of every key must be the key's final state
//     (CheckFinal, account.HandlerLost).
//
// Faults land on the first notification carrying one of the
// resourceVersions drawn from the stream's seed among its watch events, so
// a run injects at most Panics and Blocks of them (fewer when a FIFO
// merges the chosen version away or a relist skips it).
package handlerfault

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
)

// Faults say how many notifications the handlers misbehave on; the zero
// value injects nothing.
type Faults struct {
	Panics int
	Blocks int
	Block  time.Duration
}

// Validate names the flag of an impossible fault.
func (f Faults) Validate() error {
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

// Any reports whether f injects anything.
func (f Faults) Any() bool { return f.Panics > 0 || f.Blocks > 0 }

// AllowPanics lets the handlers' panics reach the informer's policy
// without crashing the process (client-go's listener re-panics while
// utilruntime.ReallyCrash is on) and returns what restores it, to be
// called once no handler runs. It changes nothing when f has no panics.
// ReallyCrash is process-wide: runs that panic must not overlap.
func (f Faults) AllowPanics() (restore func()) {
	if f.Panics == 0 {
		return func() {}
	}
	prev := utilruntime.ReallyCrash
	utilruntime.ReallyCrash = false
	return func() { utilruntime.ReallyCrash = prev }
}

// Books is what the faults read and write: the run's stream, its ledger
// and how a notified object maps to a ledger key and the stream's
// version (a tombstone's last state included; rv 0 when it has none).
type Books struct {
	Stream *gen.Stream
	Ledger *account.Ledger
	Key    func(obj any) (k int, rv uint64, ok bool)
}

// isolationGrace is, by default, how long after a blocked handler's sleep
// the others may still have had no notification before the block counts
// as having held them up: seconds on a loaded machine is already a stall.
const isolationGrace = 10 * time.Second

// Injector is one run's misbehaving handlers' shared state.
type Injector struct {
	b     Books
	o     Faults
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

// New draws o's notifications from the stream's watch events; blocks end
// early once ctx is done. EndsWith must be called before the informer
// runs.
func New(ctx context.Context, o Faults, b Books) *Injector {
	var rvs []uint64
	for _, ev := range b.Stream.Events {
		if ev.Kind.IsObject() && !ev.Missed {
			rvs = append(rvs, ev.RV)
		}
	}
	rng := rand.New(rand.NewPCG(b.Stream.Config.Seed, 0x4a4d))
	rng.Shuffle(len(rvs), func(i, j int) { rvs[i], rvs[j] = rvs[j], rvs[i] })
	pick := func(n int) map[uint64]*atomic.Bool {
		m := map[uint64]*atomic.Bool{}
		for ; n > 0 && len(rvs) > 0; n-- {
			m[rvs[0]] = new(atomic.Bool)
			rvs = rvs[1:]
		}
		return m
	}
	return &Injector{b: b, o: o, ctx: ctx, panicAt: pick(o.Panics), blockAt: pick(o.Blocks),
		view: make([]atomic.Uint64, b.Stream.Universe()), grace: isolationGrace}
}

// EndsWith tells the injector the stream is exhausted once exhausted is
// closed: a blocked handler with nothing outstanding held nobody up.
func (f *Injector) EndsWith(exhausted <-chan struct{}) { f.ended = exhausted }

// due reports whether rv is a chosen version not fired yet, and fires it.
func due(at map[uint64]*atomic.Bool, rv uint64) bool {
	fl := at[rv]
	return fl != nil && fl.CompareAndSwap(false, true)
}

// Enqueuing is called by the enqueuing handler for every notification it
// booked, before it acts on it; it panics on the chosen ones, after
// telling the ledger which state the panic skips.
func (f *Injector) Enqueuing(obj any, deleted bool) {
	f.fast.Add(1)
	if len(f.panicAt) == 0 {
		return
	}
	k, rv, ok := f.b.Key(obj)
	if !ok || rv == 0 || !due(f.panicAt, rv) {
		return
	}
	f.b.Ledger.Skip(k, rv, !deleted)
	panic("queuelab: injected handler panic")
}

// CaughtUp reports whether the blocking handler has seen every
// notification the enqueuer did (always, without blocks).
func (f *Injector) CaughtUp() bool { return f.o.Blocks == 0 || f.slow.Load() >= f.fast.Load() }

// drained reports whether nothing is outstanding: the stream ended and
// every change was accounted for.
func (f *Injector) drained() bool {
	select {
	case <-f.ended:
	default:
		return false
	}
	return f.b.Ledger.Uncovered() == 0 && f.b.Ledger.OwedDeletes() <= 0
}

// CheckFinal flags every key whose final state the blocking handler was
// not told last; call it once the informer stopped.
func (f *Injector) CheckFinal() {
	if f.o.Blocks == 0 {
		return
	}
	for k := range f.view {
		v := f.view[k].Load()
		rv, exists := f.b.Stream.Final(k)
		if (exists && v != rv<<1) || (!exists && v != 0 && v&1 == 0) {
			f.b.Ledger.Flag(account.HandlerLost, k)
		}
	}
}

// Blocker is the second handler to register on the informer, after the
// enqueuer: it records what it is told and sleeps on the chosen
// notifications.
func (f *Injector) Blocker() cache.ResourceEventHandler { return blocker{f} }

type blocker struct{ f *Injector }

// OnAdd implements cache.ResourceEventHandler.
func (b blocker) OnAdd(obj any, _ bool) { b.see(obj, false) }

// OnUpdate implements cache.ResourceEventHandler.
func (b blocker) OnUpdate(_, obj any) { b.see(obj, false) }

// OnDelete implements cache.ResourceEventHandler.
func (b blocker) OnDelete(obj any) { b.see(obj, true) }

func (b blocker) see(obj any, deleted bool) {
	f := b.f
	defer f.slow.Add(1)
	k, rv, ok := f.b.Key(obj)
	if !ok || k >= len(f.view) {
		return
	}
	v := rv << 1
	if deleted {
		v |= 1
	}
	f.view[k].Store(v)
	if rv != 0 && due(f.blockAt, rv) {
		f.block(k)
	}
}

// block sleeps for the fault's Block, then checks that the enqueuer was
// notified meanwhile, waiting up to isolationGrace for it unless nothing
// is outstanding.
func (f *Injector) block(k int) {
	before := f.fast.Load()
	if !f.sleep(f.o.Block) {
		return
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(f.grace)
	for f.fast.Load() == before && !f.drained() {
		if time.Now().After(deadline) {
			f.b.Ledger.Flag(account.Isolation, k)
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
func (f *Injector) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-f.ctx.Done():
		return false
	}
}

package linearize

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/workq"
)

// DelayingQueue is the part of client-go's workqueue.TypedDelayingInterface
// the delaying histories call: the work queue's calls and AddAfter.
type DelayingQueue interface {
	WorkQueue
	AddAfter(item int, d time.Duration)
}

// RateLimitingQueue is the part of client-go's
// workqueue.TypedRateLimitingInterface the rate-limiting histories call:
// the delaying queue's and the rate limiter's.
type RateLimitingQueue interface {
	DelayingQueue
	AddRateLimited(item int)
	Forget(item int)
	NumRequeues(item int) int
}

// Time in the histories is a fake clock's, stepped by a recorded call in
// ticks; the rate limiter backs off exponentially from one tick to
// rlMaxDelay ticks, so that a history's steps release what it delays.
const (
	rlTick     = time.Millisecond
	rlMaxDelay = 4
)

type rlOp uint8

// A rate-limiting history records the work queue's calls with their wqIn
// inputs, and the layer's and the clock's with an rlIn.
const (
	rlAddAfter       rlOp = iota // item after ticks
	rlStep                       // the clock by ticks
	rlAddRateLimited             // item
	rlForget                     // item
	rlNumRequeues                // item; the count in wqOut.n
)

type rlIn struct {
	op    rlOp
	wq    wqIn
	ticks int
}

// rlState is a work queue (client-go's model, wqState) under a delaying
// layer and an exponential rate limiter.
type rlState struct {
	wq wqState
	// waiting holds the AddAfter entries not yet in the queue, two bytes
	// each, (item, ticks until due), sorted so that equal sets compare
	// equal. An item may have several: client-go's AddAfter hands each to
	// the layer's goroutine through a channel, which merges it with a
	// waiting entry of the item only when it gets to it.
	waiting string
	// fails is the limiter's failure count per worker item.
	fails [workerItems]uint8
}

// setQueue takes the work queue model's next state, its queue sorted: Get
// takes any queued item, so the order is no part of the state.
func (s *rlState) setQueue(st any) {
	s.wq = st.(wqState)
	q := []byte(s.wq.queue)
	slices.Sort(q)
	s.wq.queue = string(q)
}

func (s *rlState) addWaiting(item, ticks int) {
	s.setWaiting(append([]byte(s.waiting), byte(item), byte(ticks)))
}

func (s *rlState) setWaiting(w []byte) {
	pairs := make([][2]byte, 0, len(w)/2)
	for i := 0; i < len(w); i += 2 {
		pairs = append(pairs, [2]byte{w[i], w[i+1]})
	}
	slices.SortFunc(pairs, func(a, b [2]byte) int { return int(a[0])<<8 | int(a[1]) - (int(b[0])<<8 | int(b[1])) })
	out := make([]byte, 0, len(w))
	for _, p := range pairs {
		out = append(out, p[0], p[1])
	}
	s.waiting = string(out)
}

// keepWaiting drops the waiting entries keep refuses.
func (s *rlState) keepWaiting(keep func(item, left byte) bool) {
	var w []byte
	for j := 0; j < len(s.waiting); j += 2 {
		if keep(s.waiting[j], s.waiting[j+1]) {
			w = append(w, s.waiting[j], s.waiting[j+1])
		}
	}
	s.waiting = string(w)
}

// promote moves one due entry of item into the queue, as an Add; one
// made before a ShutDown the history has already seen (the shutdown kept
// it for this: ShutDown drops only the entries not yet due). It reports
// false if item has no due entry.
func (s *rlState) promote(queue porcupine.Model, item int) bool {
	at := 0
	for at < len(s.waiting) && (s.waiting[at] != byte(item) || s.waiting[at+1] != 0) {
		at += 2
	}
	if at == len(s.waiting) {
		return false
	}
	s.waiting = s.waiting[:at] + s.waiting[at+2:]
	shut := s.wq.shut
	s.wq.shut = false
	_, st := queue.Step(s.wq, wqIn{op: wqAdd, item: item}, wqOut{})
	s.setQueue(st)
	s.wq.shut = shut
	return true
}

// dueIdle lists the items with a due entry that are neither dirty nor
// processing: those whose move would lengthen the queue.
func (s rlState) dueIdle() []int {
	var items []int
	for i := 0; i < len(s.waiting); i += 2 {
		it := int(s.waiting[i])
		if s.waiting[i+1] == 0 && (s.wq.dirty|s.wq.proc)&(1<<it) == 0 && !slices.Contains(items, it) {
			items = append(items, it)
		}
	}
	return items
}

// lengthened lists the states s reaches by moving n of the due idle items
// into the queue, for each choice of them.
func (s rlState) lengthened(queue porcupine.Model, n int) []rlState {
	items := s.dueIdle()
	var out []rlState
	var choose func(from int, c rlState, left int)
	choose = func(from int, c rlState, left int) {
		if left == 0 {
			out = append(out, c)
			return
		}
		for j := from; j <= len(items)-left; j++ {
			next := c
			next.promote(queue, items[j])
			choose(j+1, next, left-1)
		}
	}
	if n >= 0 {
		choose(0, s, n)
	}
	return out
}

// RateLimitingModel is client-go's rate-limiting queue on a fake clock as
// a model: the work queue's model for Add, Get, Done, Len and ShutDown
// (dirty and processing sets, dedup); AddAfter(item, d) adds at once for
// d ≤ 0, else makes item due d later; a due item reaches the queue, as an
// Add, at any instant from its due time on (the layer's goroutine moves
// it), never before; AddRateLimited is AddAfter by the limiter's next
// delay (one tick doubled per failure, at most rlMaxDelay) and counts a
// failure, Forget resets the count, NumRequeues returns it. Nothing is
// added after ShutDown, and waiting items are dropped.
//
// When the goroutine moves a due item is not in the history, so the model
// is nondeterministic. It moves one as late as it can, when a call needs
// it: a Get that hands the item out, a Len that counts it. Moving it
// earlier explains nothing more, since a move is an Add and Adds commute
// with every other call but those two, and an entry left waiting can
// always move later. Get may hand out any queued item: the order in which
// due items join other adds is the goroutine's, and following every order
// would multiply the states past what the checker can search; the work
// queue family checks the order of the queues under the layer. The model
// is not partitioned per item: Len and the shutdown span items.
func RateLimitingModel() porcupine.Model {
	queue := WorkQueueModel(true)
	step := func(s rlState, in any, o wqOut) []rlState {
		i, ok := in.(rlIn)
		if !ok {
			w := in.(wqIn)
			switch {
			case w.op == wqGet && !o.shutdown && !strings.ContainsRune(s.wq.queue, rune(o.item)):
				if !s.promote(queue, o.item) {
					return nil
				}
			case w.op == wqLen: // each choice of items moved is exactly o.n long
				return s.lengthened(queue, o.n-len(s.wq.queue))
			}
			ok, st := queue.Step(s.wq, in, o)
			if !ok {
				return nil
			}
			s.setQueue(st)
			switch {
			case w.op == wqShutDown: // drop what is not due yet
				s.keepWaiting(func(_, left byte) bool { return left == 0 })
			case w.op == wqGet && o.shutdown:
				// Nothing idle moved before the shutdown, or the queue
				// would not be empty; a processing item may have.
				s.keepWaiting(func(it, _ byte) bool { return s.wq.proc&(1<<it) != 0 })
			}
			return []rlState{s}
		}
		switch i.op {
		case rlAddRateLimited:
			n := s.fails[i.wq.item]
			s.fails[i.wq.item] = min(n+1, 250)
			i.ticks = min(1<<min(n, 7), rlMaxDelay)
			fallthrough
		case rlAddAfter:
			switch {
			case s.wq.shut:
			case i.ticks <= 0:
				_, st := queue.Step(s.wq, wqIn{op: wqAdd, item: i.wq.item}, wqOut{})
				s.setQueue(st)
			default:
				s.addWaiting(i.wq.item, i.ticks)
			}
		case rlStep:
			w := []byte(s.waiting)
			for j := 1; j < len(w); j += 2 {
				w[j] = byte(max(int(w[j])-i.ticks, 0))
			}
			s.setWaiting(w)
		case rlForget:
			s.fails[i.wq.item] = 0
		case rlNumRequeues:
			if o.n != int(s.fails[i.wq.item]) {
				return nil
			}
		}
		return []rlState{s}
	}
	return porcupine.Model{
		Init: func() any { return []rlState{{}} },
		Step: func(st, in, out any) (bool, any) {
			var next []rlState
			for _, s := range st.([]rlState) {
				next = append(next, step(s, in, out.(wqOut))...)
			}
			slices.SortFunc(next, rlState.compare)
			next = slices.Compact(next)
			return len(next) > 0, next
		},
		Equal: func(a, b any) bool { return slices.Equal(a.([]rlState), b.([]rlState)) },
		DescribeOperation: func(in, out any) string {
			i, ok := in.(rlIn)
			o := out.(wqOut)
			switch {
			case !ok:
				return queue.DescribeOperation(in, o)
			case i.op == rlAddAfter:
				return fmt.Sprintf("AddAfter(%d, %d ticks)", i.wq.item, i.ticks)
			case i.op == rlStep:
				return fmt.Sprintf("clock.Step(%d ticks)", i.ticks)
			case i.op == rlAddRateLimited:
				return fmt.Sprintf("AddRateLimited(%d)", i.wq.item)
			case i.op == rlForget:
				return fmt.Sprintf("Forget(%d)", i.wq.item)
			}
			return fmt.Sprintf("NumRequeues(%d) -> %d", i.wq.item, o.n)
		},
	}
}

func (s rlState) compare(t rlState) int {
	return cmp.Or(strings.Compare(s.wq.queue, t.wq.queue), cmp.Compare(s.wq.dirty, t.wq.dirty),
		cmp.Compare(s.wq.proc, t.wq.proc), cmp.Compare(boolInt(s.wq.shut), boolInt(t.wq.shut)),
		strings.Compare(s.waiting, t.waiting), slices.Compare(s.fails[:], t.fails[:]))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rateLimitingSession drives one delaying or rate-limiting queue and its
// fake clock.
type rateLimitingSession struct {
	workQueueSession
	q     DelayingQueue
	rl    RateLimitingQueue // nil for a delaying queue: AddAfter takes the limiter's calls' share
	clock *testingclock.FakeClock
}

func (s *rateLimitingSession) op(rng *rand.Rand, c int, w *workerState, r *recorder) {
	it := rng.IntN(workerItems)
	call := func(in rlIn, f func() wqOut) { r.call(c, in, false, func() any { return f() }) }
	switch n := rng.IntN(100); {
	case n < 12 || (s.rl == nil && n < 33):
		ticks := rng.IntN(4)
		call(rlIn{op: rlAddAfter, wq: wqIn{item: it}, ticks: ticks}, func() wqOut {
			s.q.AddAfter(it, time.Duration(ticks)*rlTick)
			return wqOut{}
		})
	case n < 22:
		call(rlIn{op: rlAddRateLimited, wq: wqIn{item: it}}, func() wqOut { s.rl.AddRateLimited(it); return wqOut{} })
	case n < 27:
		call(rlIn{op: rlForget, wq: wqIn{item: it}}, func() wqOut { s.rl.Forget(it); return wqOut{} })
	case n < 33:
		call(rlIn{op: rlNumRequeues, wq: wqIn{item: it}}, func() wqOut { return wqOut{n: s.rl.NumRequeues(it)} })
	case n < 43:
		ticks := 1 + rng.IntN(2)
		call(rlIn{op: rlStep, ticks: ticks}, func() wqOut { s.clock.Step(time.Duration(ticks) * rlTick); return wqOut{} })
	default:
		s.workQueueSession.op(rng, c, w, r) // recorded with wqIn inputs
	}
}

// newRateLimiter is the limiter of every history: client-go's per-item
// exponential backoff in ticks.
func newRateLimiter() workqueue.TypedRateLimiter[int] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[int](rlTick, rlMaxDelay*rlTick)
}

// CheckRateLimiting checks the rate-limiting queues newQ builds on the
// fake clock and limiter given against the model.
func CheckRateLimiting(cfg Config, impl string, newQ func(clock.WithTicker, workqueue.TypedRateLimiter[int]) RateLimitingQueue) Result {
	return check(cfg, "ratelimit", impl, "due-time", RateLimitingModel(), func() session {
		clk := testingclock.NewFakeClock(time.Unix(0, 0))
		q := newQ(clk, newRateLimiter())
		return &rateLimitingSession{workQueueSession: workQueueSession{q: q, fresh: workerItems}, q: q, rl: q, clock: clk}
	})
}

// CheckDelaying checks the delaying queues newQ builds on the fake clock
// given against the model (whose limiter the histories never call).
func CheckDelaying(cfg Config, impl string, newQ func(clock.WithTicker) DelayingQueue) Result {
	return check(cfg, "delaying", impl, "due-time", RateLimitingModel(), func() session {
		clk := testingclock.NewFakeClock(time.Unix(0, 0))
		q := newQ(clk)
		return &rateLimitingSession{workQueueSession: workQueueSession{q: q, fresh: workerItems}, q: q, clock: clk}
	})
}

// layerBases are the work queues queuelab's layers are checked over:
// client-go's and each of queuelab's.
func layerBases() []struct {
	name string
	newQ func() workqueue.TypedInterface[int]
} {
	return []struct {
		name string
		newQ func() workqueue.TypedInterface[int]
	}{
		{"layer+clientgo", func() workqueue.TypedInterface[int] { return workqueue.NewTyped[int]() }},
		{"layer+mutex", func() workqueue.TypedInterface[int] { return registry.Must(workq.NewMutex[int](workq.Options{})) }},
		{"layer+sharded", func() workqueue.TypedInterface[int] { return registry.Must(workq.NewSharded[int](workq.Options{})) }},
		{"layer+ring", func() workqueue.TypedInterface[int] { return registry.Must(workq.NewRing[int](workq.Options{})) }},
	}
}

// CheckRateLimitingQueues checks client-go's rate-limiting queue, the
// control, and queuelab's rate-limiting layer over every work queue (the
// model takes any order, so per-shard order needs no weaker one).
func CheckRateLimitingQueues(cfg Config) []Result {
	out := []Result{CheckRateLimiting(cfg, registry.Baseline, func(clk clock.WithTicker, l workqueue.TypedRateLimiter[int]) RateLimitingQueue {
		return workqueue.NewTypedRateLimitingQueueWithConfig(l, workqueue.TypedRateLimitingQueueConfig[int]{Clock: clk})
	})}
	for _, b := range layerBases() {
		out = append(out, CheckRateLimiting(cfg, b.name, func(clk clock.WithTicker, l workqueue.TypedRateLimiter[int]) RateLimitingQueue {
			return registry.Must(workq.NewRateLimiting(b.newQ(), l, workq.LayerOptions{Clock: clk}))
		}))
	}
	return out
}

// CheckDelayingQueues checks client-go's delaying queue, the control, and
// queuelab's delaying layer over every work queue.
func CheckDelayingQueues(cfg Config) []Result {
	out := []Result{CheckDelaying(cfg, registry.Baseline, func(clk clock.WithTicker) DelayingQueue {
		return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[int]{Clock: clk})
	})}
	for _, b := range layerBases() {
		out = append(out, CheckDelaying(cfg, b.name, func(clk clock.WithTicker) DelayingQueue {
			return registry.Must(workq.NewDelaying(b.newQ(), workq.LayerOptions{Clock: clk}))
		}))
	}
	return out
}

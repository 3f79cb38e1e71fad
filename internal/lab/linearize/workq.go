package linearize

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/anishathalye/porcupine"

	"github.com/queuelab/queuelab/internal/lab/registry"
)

// WorkQueue is the part of client-go's workqueue.TypedInterface the work
// queue histories call.
type WorkQueue interface {
	Add(item int)
	Get() (item int, shutdown bool)
	Done(item int)
	Len() int
	ShutDown()
}

// Items 0..workerItems-1 are the ones workers add (so they collide: dedup,
// dirty while processing); the driver's fresh items follow, up to 63 so
// that a set of items is one uint64.
const (
	workerItems = 5
	maxItems    = 64
)

type wqOp uint8

const (
	wqAdd wqOp = iota
	wqGet
	wqDone
	wqLen
	wqShutDown
)

type wqIn struct {
	op   wqOp
	item int
}

type wqOut struct {
	item     int
	shutdown bool
	n        int
}

// wqState is client-go's queue state: the ready queue (one byte per item,
// in order), the dirty and processing sets, the shutdown flag.
type wqState struct {
	queue       string
	dirty, proc uint64
	shut        bool
}

// WorkQueueModel is client-go's work queue as a sequential model. With
// anyOrder, Get may hand out any queued item instead of the oldest: the
// weaker model for a variant declaring per-shard order.
func WorkQueueModel(anyOrder bool) porcupine.Model {
	return sequential(
		func(s wqState, i wqIn, o wqOut) (bool, wqState) {
			bit := uint64(1) << i.item
			switch i.op {
			case wqAdd:
				if s.shut || s.dirty&bit != 0 {
					return true, s
				}
				s.dirty |= bit
				if s.proc&bit == 0 {
					s.queue += string(rune(i.item))
				}
				return true, s
			case wqGet:
				if o.shutdown {
					return s.shut && s.queue == "", s
				}
				at := strings.IndexByte(s.queue, byte(o.item))
				if at < 0 || (at > 0 && !anyOrder) {
					return false, s
				}
				s.queue = s.queue[:at] + s.queue[at+1:]
				got := uint64(1) << o.item
				s.dirty &^= got
				s.proc |= got
				return true, s
			case wqDone:
				s.proc &^= bit
				if s.dirty&bit != 0 {
					s.queue += string(rune(i.item))
				}
				return true, s
			case wqLen:
				return o.n == len(s.queue), s
			case wqShutDown:
				s.shut = true
				return true, s
			}
			return false, s
		},
		func(i wqIn, o wqOut) string {
			switch i.op {
			case wqAdd:
				return fmt.Sprintf("Add(%d)", i.item)
			case wqGet:
				return fmt.Sprintf("Get() -> %d, %v", o.item, o.shutdown)
			case wqDone:
				return fmt.Sprintf("Done(%d)", i.item)
			case wqLen:
				return fmt.Sprintf("Len() -> %d", o.n)
			}
			return "ShutDown()"
		},
	)
}

// freshItems is the driver's next fresh item: the items above the
// workers' own, which it adds to unblock a Get, each once.
type freshItems int

// next hands out the next fresh item.
func (f *freshItems) next() int {
	if *f == maxItems {
		panic("linearize: out of fresh items; shorten the histories")
	}
	*f++
	return int(*f) - 1
}

// workQueueSession drives one work queue.
type workQueueSession struct {
	q     WorkQueue
	fresh freshItems
}

func (s *workQueueSession) add(c, it int, r *recorder) {
	r.call(c, wqIn{op: wqAdd, item: it}, false, func() any { s.q.Add(it); return wqOut{} })
}

func (s *workQueueSession) done(c, it int, r *recorder) {
	r.call(c, wqIn{op: wqDone, item: it}, false, func() any { s.q.Done(it); return wqOut{} })
}

func (s *workQueueSession) get(c int, w *workerState, r *recorder) {
	r.call(c, wqIn{op: wqGet}, true, func() any {
		it, shut := s.q.Get()
		w.hold(it, shut)
		return wqOut{item: it, shutdown: shut}
	})
}

func (s *workQueueSession) op(rng *rand.Rand, c int, w *workerState, r *recorder) {
	switch n := rng.IntN(100); {
	case w.doneDue(n):
		s.done(c, w.takeRandom(rng), r)
	case n < 60:
		s.add(c, rng.IntN(workerItems), r)
	case n < 93:
		s.get(c, w, r)
	case n < 99:
		r.call(c, wqIn{op: wqLen}, false, func() any { return wqOut{n: s.q.Len()} })
	default:
		r.call(c, wqIn{op: wqShutDown}, false, func() any { s.q.ShutDown(); return wqOut{} })
	}
}

func (s *workQueueSession) feed(c int, r *recorder) { s.add(c, s.fresh.next(), r) }

func (s *workQueueSession) close() { s.q.ShutDown() }

// CheckWorkQueue checks the work queues newQ builds against the strict
// model, or with anyOrder against the per-shard one.
func CheckWorkQueue(cfg Config, impl string, anyOrder bool, newQ func() WorkQueue) Result {
	model := "fifo"
	if anyOrder {
		model = "any-order"
	}
	return check(cfg, "workqueue", impl, model, WorkQueueModel(anyOrder), func() session {
		return &workQueueSession{q: newQ(), fresh: workerItems}
	})
}

// CheckWorkQueues checks every work queue in the registry, client-go's
// included; a variant declaring per-shard order gets the weaker model.
func CheckWorkQueues(cfg Config) []Result {
	var out []Result
	for _, e := range registry.WorkQueues[int]() {
		anyOrder := e.Guarantees.Order != guarantee.OrderFIFO
		newQ := func() WorkQueue { return e.New() }
		out = append(out, strictToo(CheckWorkQueue(cfg, e.Name, anyOrder, newQ), anyOrder, func() Result {
			return CheckWorkQueue(cfg, e.Name, false, newQ)
		})...)
	}
	return out
}

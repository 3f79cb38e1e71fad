package linearize

import (
	"fmt"
	"math/rand/v2"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/anishathalye/porcupine"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/priorityq"
)

// PriorityQueue is the part of controller-runtime's PriorityQueue the
// priority-queue histories call. They leave out ShutDown (what Get does
// after it is being changed to controller-runtime's rule; the work queue
// histories cover a shutdown) and delays (ready items only: the model has
// no clock).
type PriorityQueue interface {
	AddWithOpts(o priorityqueue.AddOpts, items ...int)
	GetWithPriority() (item int, priority int, shutdown bool)
	Done(item int)
	ShutDown()
}

// PriorityOrder is what a priority-queue model demands of the order among
// ready items of equal priority.
type PriorityOrder int

const (
	// KeepPosition is controller-runtime's order: FIFO within a priority,
	// by the add that created the item's entry (or raised its priority),
	// so an item added while processed keeps that place after Done.
	KeepPosition PriorityOrder = iota
	// TailOnDone is FIFO within a priority, except that an item added
	// while processed goes to the tail of its priority at Done: the order
	// a variant without registry Guarantees.KeepsPosition declares.
	TailOnDone
	// AnyWithinPriority demands only the highest priority: the weaker
	// model for per-shard order.
	AnyWithinPriority
)

func (o PriorityOrder) String() string {
	return [...]string{"keep-position", "tail-on-done", "max-priority"}[o]
}

// priorities are 0..pqPriorities-1: few, so that equal priorities meet.
const pqPriorities = 3

type pqOp uint8

const (
	pqAdd pqOp = iota
	pqGet
	pqDone
)

type pqIn struct {
	op         pqOp
	item, prio int
}

type pqOut struct {
	item, prio int
	shutdown   bool
}

// pqState holds the queued entries in hand-out order, two bytes each
// (item, priority), processing ones included (Get skips them), and the
// processing set.
type pqState struct {
	ents string
	proc uint64
}

func (s pqState) find(item int) int {
	for j := 0; j < len(s.ents); j += 2 {
		if int(s.ents[j]) == item {
			return j
		}
	}
	return -1
}

// insert puts item at the tail of priority prio.
func (s pqState) insert(item, prio int) pqState {
	j := 0
	for j < len(s.ents) && int(s.ents[j+1]) >= prio {
		j += 2
	}
	s.ents = s.ents[:j] + string([]byte{byte(item), byte(prio)}) + s.ents[j:]
	return s
}

func (s pqState) remove(j int) pqState {
	s.ents = s.ents[:j] + s.ents[j+2:]
	return s
}

// PriorityQueueModel is controller-runtime's priority queue, ready items
// only, as a sequential model with the given order within a priority.
func PriorityQueueModel(order PriorityOrder) porcupine.Model {
	return sequential(
		func(s pqState, i pqIn, o pqOut) (bool, pqState) {
			switch i.op {
			case pqAdd:
				j := s.find(i.item)
				switch {
				case j < 0:
					return true, s.insert(i.item, i.prio)
				case i.prio > int(s.ents[j+1]):
					return true, s.remove(j).insert(i.item, i.prio)
				}
				return true, s
			case pqGet:
				if o.shutdown {
					return false, s
				}
				best, at := -1, -1
				for j := 0; j < len(s.ents); j += 2 {
					if s.proc&(1<<s.ents[j]) != 0 {
						continue
					}
					if best < 0 {
						best = j
					}
					if int(s.ents[j]) == o.item {
						at = j
					}
				}
				if at < 0 || int(s.ents[at+1]) != o.prio {
					return false, s
				}
				if at != best && (order != AnyWithinPriority || s.ents[at+1] != s.ents[best+1]) {
					return false, s
				}
				s = s.remove(at)
				s.proc |= 1 << o.item
				return true, s
			case pqDone:
				s.proc &^= 1 << i.item
				if j := s.find(i.item); j >= 0 && order == TailOnDone {
					s = s.remove(j).insert(i.item, int(s.ents[j+1]))
				}
				return true, s
			}
			return false, s
		},
		func(i pqIn, o pqOut) string {
			switch i.op {
			case pqAdd:
				return fmt.Sprintf("Add(%d, priority %d)", i.item, i.prio)
			case pqGet:
				return fmt.Sprintf("GetWithPriority() -> %d, %d, %v", o.item, o.prio, o.shutdown)
			}
			return fmt.Sprintf("Done(%d)", i.item)
		},
	)
}

type priorityQueueSession struct {
	q     PriorityQueue
	fresh freshItems
}

func (s *priorityQueueSession) add(c, it, prio int, r *recorder) {
	r.call(c, pqIn{op: pqAdd, item: it, prio: prio}, false, func() any {
		s.q.AddWithOpts(priorityqueue.AddOpts{Priority: &prio}, it)
		return pqOut{}
	})
}

func (s *priorityQueueSession) done(c, it int, r *recorder) {
	r.call(c, pqIn{op: pqDone, item: it}, false, func() any { s.q.Done(it); return pqOut{} })
}

func (s *priorityQueueSession) get(c int, w *workerState, r *recorder) {
	r.call(c, pqIn{op: pqGet}, true, func() any {
		it, prio, shut := s.q.GetWithPriority()
		w.hold(it, shut)
		return pqOut{item: it, prio: prio, shutdown: shut}
	})
}

func (s *priorityQueueSession) op(rng *rand.Rand, c int, w *workerState, r *recorder) {
	switch n := rng.IntN(100); {
	case w.doneDue(n):
		s.done(c, w.takeRandom(rng), r)
	case n < 65:
		s.add(c, rng.IntN(workerItems), rng.IntN(pqPriorities), r)
	default:
		s.get(c, w, r)
	}
}

func (s *priorityQueueSession) feed(c int, r *recorder) { s.add(c, s.fresh.next(), 0, r) }

func (s *priorityQueueSession) close() { s.q.ShutDown() }

// CheckPriorityQueue checks the priority queues newQ builds against the
// model with the given order.
func CheckPriorityQueue(cfg Config, impl string, order PriorityOrder, newQ func() PriorityQueue) Result {
	return check(cfg, "priorityq", impl, order.String(), PriorityQueueModel(order), func() session {
		return &priorityQueueSession{q: newQ(), fresh: workerItems}
	})
}

// CheckPriorityQueues checks every priority queue in the registry,
// controller-runtime's included, each against the order it declares.
func CheckPriorityQueues(cfg Config) []Result {
	var out []Result
	for _, e := range registry.PriorityQueues[int]() {
		order := KeepPosition
		switch {
		case e.Guarantees.Order != guarantee.OrderFIFO:
			order = AnyWithinPriority
		case !e.Guarantees.KeepsPosition:
			order = TailOnDone
		}
		newQ := func() PriorityQueue { return registry.Must(e.New(priorityq.Options[int]{})) }
		out = append(out, strictToo(CheckPriorityQueue(cfg, e.Name, order, newQ), order != KeepPosition, func() Result {
			return CheckPriorityQueue(cfg, e.Name, KeepPosition, newQ)
		})...)
	}
	return out
}

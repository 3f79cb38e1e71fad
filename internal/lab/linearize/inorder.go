package linearize

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/anishathalye/porcupine"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/inorder"
)

// InOrderQueue is the part of client-go's RealFIFO the in-order histories
// call: writers and one consumer, as in an informer. RealFIFO and FIFO share
// cache.Queue, so the calls are FIFO's; the name keeps the two kinds of
// history apart.
type InOrderQueue interface {
	FIFO
}

type ioOp uint8

const (
	ioWrite ioOp = iota // Add, Update, Delete, Replace: one event each
	ioPop
)

// ioIn: the written event's id (an object's version, or Replace's
// resource version).
type ioIn struct {
	op ioOp
	id int32
}

// ioOut: the id of the event Pop handed out, -1 for an answer no event
// explains (an error, several deltas, an unknown object).
type ioOut struct{ id int32 }

// InOrderModel is client-go's RealFIFO in atomic mode: every write is one
// event, Replace one ReplacedAll event, and Pop hands them out in the
// order they were written.
func InOrderModel() porcupine.Model {
	return porcupine.Model{
		Init:  func() any { return "" },
		Equal: func(a, b any) bool { return a.(string) == b.(string) },
		Step: func(st, in, out any) (bool, any) {
			s, i, o := st.(string), in.(ioIn), out.(ioOut)
			if i.op == ioWrite {
				return true, s + string(rune(i.id))
			}
			if s == "" || o.id != int32(s[0]) {
				return false, s
			}
			return true, s[1:]
		},
		DescribeOperation: func(in, out any) string {
			if i := in.(ioIn); i.op == ioWrite {
				return fmt.Sprintf("write(event %d)", i.id)
			}
			return fmt.Sprintf("Pop() -> event %d", out.(ioOut).id)
		},
	}
}

// poppedID names the event a Pop handed out.
func poppedID(got any, err error) ioOut {
	ds, ok := got.(cache.Deltas)
	if err != nil || !ok || len(ds) != 1 {
		return ioOut{id: -1}
	}
	switch obj := ds[0].Object.(type) {
	case *storeObj:
		return ioOut{id: obj.ver}
	case cache.ReplacedAllInfo:
		if id, err := strconv.Atoi(obj.ResourceVersion); err == nil {
			return ioOut{id: int32(id)}
		}
	}
	return ioOut{id: -1}
}

// Events ids stay below 128, one byte in the model's state.
const maxEvents = 128

type inOrderSession struct {
	q       InOrderQueue
	replace bool // the mode has a ReplacedAll event
	id      atomic.Int32
}

func (s *inOrderSession) next() int32 {
	id := s.id.Add(1)
	if id >= maxEvents {
		panic("linearize: out of event ids; shorten the histories")
	}
	return id
}

// write makes the n-th kind of write (out of 100: Add, Update, Delete,
// Replace) as the call of client c.
func (s *inOrderSession) write(c, n int, r *recorder) {
	id := s.next()
	obj := &storeObj{key: int(id) % storeKeys, ver: id}
	r.call(c, ioIn{op: ioWrite, id: id}, false, func() any {
		switch {
		case n < 40:
			_ = s.q.Add(obj)
		case n < 75:
			_ = s.q.Update(obj)
		case n < 90 || !s.replace:
			_ = s.q.Delete(obj)
		default:
			_ = s.q.Replace([]any{obj}, strconv.Itoa(int(id)))
		}
		return ioOut{}
	})
}

// op: worker 0 is the one consumer; the others write.
func (s *inOrderSession) op(rng *rand.Rand, c int, _ *workerState, r *recorder) {
	if c != 0 {
		s.write(c, rng.IntN(100), r)
		return
	}
	r.call(c, ioIn{op: ioPop}, true, func() any {
		return poppedID(s.q.Pop(func(any, bool) error { return nil }))
	})
}

func (s *inOrderSession) feed(c int, r *recorder) {
	s.write(c, 0, r) // an Add
}

func (s *inOrderSession) close() { s.q.Close() }

// InOrderOptions are the options the in-order histories build queues
// with: keys from storeObj.
func InOrderOptions() inorder.Options {
	return inorder.Options{KeyFunction: func(obj any) (string, error) {
		if o, ok := obj.(*storeObj); ok {
			return storeKey(o.key), nil
		}
		return "", fmt.Errorf("linearize: unexpected object %T", obj)
	}}
}

// CheckInOrder checks the queues newQ builds against the in-order model;
// replace says whether the histories call Replace (one ReplacedAll event,
// atomic mode only).
func CheckInOrder(cfg Config, impl string, replace bool, newQ func() InOrderQueue) Result {
	model := "in-order"
	if !replace {
		model = "in-order/no-replace"
	}
	return check(cfg, "inorder", impl, model, InOrderModel(), func() session {
		return &inOrderSession{q: newQ(), replace: replace}
	})
}

// CheckInOrders checks every in-order FIFO in the registry, client-go's
// included: in atomic mode where the entry has it, else in per-object
// mode with empty KnownObjects and no Replace (whose per-object events
// depend on them).
func CheckInOrders(cfg Config) []Result {
	var out []Result
	for _, e := range registry.InOrderFIFOs() {
		opts := InOrderOptions()
		if !e.Guarantees.Atomic {
			opts.KnownObjects = cache.NewStore(opts.KeyFunction)
		}
		out = append(out, CheckInOrder(cfg, e.Name, e.Guarantees.Atomic, func() InOrderQueue {
			q, err := e.New(opts)
			if err != nil {
				panic(err)
			}
			return q
		}))
	}
	return out
}

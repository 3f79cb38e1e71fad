package linearize

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/anishathalye/porcupine"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
)

// FIFO is the part of client-go's cache.Queue the FIFO histories call.
type FIFO interface {
	Add(obj any) error
	Update(obj any) error
	Delete(obj any) error
	Replace(list []any, resourceVersion string) error
	Pop(process cache.PopProcessFunc) (any, error)
	Close()
}

// fifoKeys bounds the keys of one history (one byte each in the model).
const fifoKeys = 128

type fifoOp uint8

const (
	fifoWrite   fifoOp = iota // Add or Update
	fifoDelete                // never followed by a write of the key
	fifoReplace               // with one object, so its queue order is fixed
	fifoPop
)

type fifoIn struct {
	op  fifoOp
	key int
	ver int32
}

// fifoOut: the popped key and version; key -1 for an answer no state
// explains.
type fifoOut struct {
	key int
	ver int32
}

// fifoState: queued keys in order (a deleted key may stay queued, as in
// client-go; Pop skips it) and each key's newest version, 0 for none.
type fifoState struct {
	queue string
	vers  [fifoKeys]int32
}

// FIFOModel is client-go's FIFO as a sequential model: a key is queued
// once, when it has no value, and Pop hands out the oldest queued key's
// newest value. With anyOrder Pop may take any queued key: the weaker
// model for per-shard order.
//
// The histories never write a key again once they deleted it, and Replace
// one object at a time: in those cases client-go leaves an order
// unspecified (a deleted key's stale place in the queue, a map's order),
// which a deterministic model cannot follow.
func FIFOModel(anyOrder bool) porcupine.Model {
	return sequential(
		func(s fifoState, i fifoIn, o fifoOut) (bool, fifoState) {
			switch i.op {
			case fifoWrite:
				if s.vers[i.key] == 0 {
					s.queue += string(rune(i.key))
				}
				s.vers[i.key] = i.ver
				return true, s
			case fifoDelete:
				s.vers[i.key] = 0
				return true, s
			case fifoReplace:
				s.vers = [fifoKeys]int32{}
				s.vers[i.key] = i.ver
				s.queue = string(rune(i.key))
				return true, s
			case fifoPop:
				if o.key < 0 {
					return false, s
				}
				// drop the stale keys ahead of the first live one
				for s.queue != "" && s.vers[s.queue[0]] == 0 {
					s.queue = s.queue[1:]
				}
				at := strings.IndexByte(s.queue, byte(o.key))
				if at < 0 || (at > 0 && !anyOrder) || s.vers[o.key] != o.ver {
					return false, s
				}
				s.queue = s.queue[:at] + s.queue[at+1:]
				s.vers[o.key] = 0
				return true, s
			}
			return false, s
		},
		func(i fifoIn, o fifoOut) string {
			switch i.op {
			case fifoWrite:
				return fmt.Sprintf("Add/Update(k%d, v%d)", i.key, i.ver)
			case fifoDelete:
				return fmt.Sprintf("Delete(k%d)", i.key)
			case fifoReplace:
				return fmt.Sprintf("Replace([k%d v%d])", i.key, i.ver)
			}
			return fmt.Sprintf("Pop() -> k%d v%d", o.key, o.ver)
		},
	)
}

type fifoSession struct {
	q        FIFO
	key, ver atomic.Int32
	owned    [][]int // each writer's keys it may still write
}

func (s *fifoSession) newKey() int {
	k := int(s.key.Add(1))
	if k >= fifoKeys {
		panic("linearize: out of keys; shorten the histories")
	}
	return k
}

func (s *fifoSession) write(c, k int, add bool, r *recorder) {
	obj := &storeObj{key: k, ver: s.ver.Add(1)}
	r.call(c, fifoIn{op: fifoWrite, key: k, ver: obj.ver}, false, func() any {
		if add {
			_ = s.q.Add(obj)
		} else {
			_ = s.q.Update(obj)
		}
		return fifoOut{}
	})
}

// op: worker 0 pops; the others write keys of their own, and never a key
// again once they deleted it.
func (s *fifoSession) op(rng *rand.Rand, c int, _ *workerState, r *recorder) {
	if c == 0 {
		r.call(c, fifoIn{op: fifoPop}, true, func() any {
			got, err := s.q.Pop(func(any, bool) error { return nil })
			if o, ok := got.(*storeObj); ok && err == nil {
				return fifoOut{key: o.key, ver: o.ver}
			}
			return fifoOut{key: -1}
		})
		return
	}
	own := &s.owned[c]
	switch n := rng.IntN(100); {
	case n < 55 && len(*own) > 0:
		s.write(c, (*own)[rng.IntN(len(*own))], n < 20, r)
	case n < 80:
		k := s.newKey()
		*own = append(*own, k)
		s.write(c, k, true, r)
	case n < 92 && len(*own) > 0:
		i := rng.IntN(len(*own))
		k := (*own)[i]
		*own = append((*own)[:i], (*own)[i+1:]...)
		r.call(c, fifoIn{op: fifoDelete, key: k}, false, func() any {
			_ = s.q.Delete(&storeObj{key: k})
			return fifoOut{}
		})
	default:
		obj := &storeObj{key: s.newKey(), ver: s.ver.Add(1)}
		r.call(c, fifoIn{op: fifoReplace, key: obj.key, ver: obj.ver}, false, func() any {
			_ = s.q.Replace([]any{obj}, "")
			return fifoOut{}
		})
	}
}

func (s *fifoSession) feed(c int, r *recorder) { s.write(c, s.newKey(), true, r) }

func (s *fifoSession) close() { s.q.Close() }

// FIFOKeyFunc keys the FIFO histories' objects.
func FIFOKeyFunc(obj any) (string, error) { return InOrderOptions().KeyFunction(obj) }

// CheckFIFO checks the FIFOs newQ builds against the strict model, or
// with anyOrder against the per-shard one.
func CheckFIFO(cfg Config, impl string, anyOrder bool, newQ func() FIFO) Result {
	model := "fifo"
	if anyOrder {
		model = "any-order"
	}
	return check(cfg, "fifo", impl, model, FIFOModel(anyOrder), func() session {
		return &fifoSession{q: newQ(), owned: make([][]int, cfg.Workers)}
	})
}

// CheckFIFOs checks every FIFO in the registry, client-go's included; a
// variant declaring per-shard order gets the weaker model.
func CheckFIFOs(cfg Config) []Result {
	var out []Result
	for _, e := range registry.FIFOs() {
		anyOrder := e.Guarantees.Order != guarantee.OrderFIFO
		newQ := func() FIFO { return e.New(FIFOKeyFunc) }
		out = append(out, strictToo(CheckFIFO(cfg, e.Name, anyOrder, newQ), anyOrder, func() Result {
			return CheckFIFO(cfg, e.Name, false, newQ)
		})...)
	}
	return out
}

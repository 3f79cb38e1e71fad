package linearize

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/anishathalye/porcupine"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/deltafifo"
)

// DeltaFIFO is the part of client-go's cache.Queue the DeltaFIFO histories
// call: writers (the Reflector's Add, Update, Delete, Replace and the
// informer's Resync) and one consumer, whose process function keeps
// KnownObjects as an informer's indexer does.
type DeltaFIFO interface {
	FIFO
	Resync() error
}

// Keys 0..dfWorkerKeys-1 are the ones writers touch (so their deltas
// collide: compression, tombstones of queued keys); the driver's fresh
// keys follow, up to dfKeys so that a set of keys is one uint32.
const (
	dfWorkerKeys = 6
	dfKeys       = 32
	dfBagged     = 0x80 // a queue byte's flag: same bag as the key before it
)

type dfOp uint8

const (
	dfAdd dfOp = iota
	dfUpdate
	dfDelete
	dfReplace
	dfResync
	dfPop
)

// dfIn: the written key and version, or Replace's list (key, version
// pairs, encoded as deltas are).
type dfIn struct {
	op   dfOp
	key  int
	ver  uint16
	list string
}

// dfOut: the popped key, its Deltas encoded, and isInInitialList; key -1
// for an answer no state explains (an error, an unknown object).
type dfOut struct {
	key     int
	deltas  string
	initial bool
}

// A delta is encoded in three bytes: its kind, then its object's version
// (0 for none), big-endian. Kinds are client-go's DeltaTypes, with a
// Deleted delta carrying a DeletedFinalStateUnknown (a tombstone, whose
// version is that of the object it wraps) kept apart from one carrying the
// object.
const (
	dkAdded     = 'A'
	dkUpdated   = 'U'
	dkDeleted   = 'D'
	dkTombstone = 'T'
	dkReplaced  = 'R'
	dkSync      = 'S'
	dkInvalid   = '?'
)

func delta(kind byte, ver uint16) string { return string([]byte{kind, byte(ver >> 8), byte(ver)}) }

// newest returns the kind and version of the last delta of ds.
func newest(ds string) (byte, uint16) {
	d := ds[len(ds)-3:]
	return d[0], uint16(d[1])<<8 | uint16(d[2])
}

func isDeletion(kind byte) bool { return kind == dkDeleted || kind == dkTombstone }

// dfState is client-go's DeltaFIFO with KnownObjects kept by its consumer:
// the queued keys in order, each key's Deltas and its KnownObjects
// version (0: absent), and the initial population HasSynced waits for.
type dfState struct {
	// queue holds one byte per queued key, oldest first; a byte with
	// dfBagged set belongs to the bag of the key before it: keys one
	// Replace or Resync queued in KnownObjects' ListKeys order, which is a
	// map's, so unspecified among them.
	queue     string
	deltas    [dfKeys]string
	known     [dfKeys]uint16
	populated bool
	initial   uint32 // keys of the first Replace not yet popped
}

// appendDelta is queueActionLocked: append, compress two deletions into
// the one with more information (the one that is not a tombstone, else
// the newer), and queue a key that had no deltas. It reports whether the
// key was newly queued.
func (s *dfState) appendDelta(k int, d string) bool {
	old := s.deltas[k]
	if old == "" {
		s.deltas[k] = d
		return true
	}
	if prev, _ := newest(old); isDeletion(prev) && isDeletion(d[0]) {
		if prev == dkTombstone {
			s.deltas[k] = old[:len(old)-3] + d
		}
		return false
	}
	s.deltas[k] = old + d
	return false
}

// enqueue appends keys to the queue, as one bag when bagged.
func (s *dfState) enqueue(keys []int, bagged bool) {
	for i, k := range keys {
		b := byte(k)
		if bagged && i > 0 {
			b |= dfBagged
		}
		s.queue += string([]byte{b})
	}
}

// tombstone is the Deleted delta Replace appends for key k: its last
// known object, that of its newest delta (unwrapped if a tombstone), else
// KnownObjects'.
func (s *dfState) tombstone(k int) string {
	if ds := s.deltas[k]; ds != "" {
		_, v := newest(ds)
		return delta(dkTombstone, v)
	}
	return delta(dkTombstone, s.known[k])
}

// replace applies Replace(list): Replaced deltas to the listed keys,
// queueing the new ones in list order, then a tombstone to every other
// queued key and to every known key without deltas (queued as one bag);
// the first Replace before any write sets the initial population.
func (s *dfState) replace(list string) {
	var listed uint32
	var fresh []int
	for i := 0; i < len(list); i += 3 {
		k := int(list[i])
		listed |= 1 << k
		if s.appendDelta(k, delta(dkReplaced, uint16(list[i+1])<<8|uint16(list[i+2]))) {
			fresh = append(fresh, k)
		}
	}
	s.enqueue(fresh, false)
	var knownOnly []int
	for k := range dfKeys {
		switch {
		case listed&(1<<k) != 0:
		case s.deltas[k] != "":
			s.appendDelta(k, s.tombstone(k))
		case s.known[k] != 0:
			s.appendDelta(k, s.tombstone(k))
			knownOnly = append(knownOnly, k)
		}
	}
	s.enqueue(knownOnly, true)
	if !s.populated {
		s.populated = true
		for i := range len(s.queue) {
			s.initial |= 1 << (s.queue[i] &^ dfBagged)
		}
	}
}

// resync appends a Sync delta with the known object to every known key
// without deltas, queued as one bag.
func (s *dfState) resync() {
	var synced []int
	for k := range dfKeys {
		if s.known[k] != 0 && s.deltas[k] == "" {
			s.appendDelta(k, delta(dkSync, s.known[k]))
			synced = append(synced, k)
		}
	}
	s.enqueue(synced, true)
}

// pop takes key k if the order allows: the oldest key or one of its bag,
// or with anyOrder any queued key.
func (s *dfState) pop(k int, anyOrder bool) bool {
	at := -1
	for i := range len(s.queue) {
		if int(s.queue[i]&^dfBagged) == k {
			at = i
			break
		}
		if !anyOrder && i+1 < len(s.queue) && s.queue[i+1]&dfBagged == 0 {
			break // past the first bag
		}
	}
	if at < 0 {
		return false
	}
	q := []byte(s.queue)
	if at+1 < len(q) && q[at]&dfBagged == 0 {
		q[at+1] &^= dfBagged // the next key heads the bag now
	}
	s.queue = string(slices.Delete(q, at, at+1))
	if kind, v := newest(s.deltas[k]); isDeletion(kind) {
		s.known[k] = 0
	} else {
		s.known[k] = v
	}
	s.deltas[k] = ""
	s.initial &^= 1 << k
	return true
}

// DeltaFIFOModel is client-go's DeltaFIFO, with KnownObjects and
// EmitDeltaTypeReplaced as an informer sets them, as a sequential model:
// Add and Update append a delta; Delete too unless the key has neither
// deltas nor a known object; two deletions in a row compress into one;
// Replace appends a Replaced delta to every listed key and a tombstone to
// every other key that is queued or known, all at one instant; Resync a
// Sync delta to every known key with none queued; Pop hands out the
// oldest key with all its Deltas, and isInInitialList while the first
// Replace's keys are not all popped, and its consumer applies them to
// KnownObjects. With anyOrder, Pop may take any queued key, and
// isInInitialList says whether that key was among the first Replace's:
// the weaker model for per-shard order. Without initialList, Pop's
// isInInitialList is not checked: the model that tells a violation of the
// initial population from any other.
//
// The model is not partitioned per key: Replace's tombstones depend on
// every key's state at one instant and Pop's order spans keys, so
// splitting the history by key would drop the very atomicity and order
// the DeltaFIFO promises.
func DeltaFIFOModel(anyOrder, initialList bool) porcupine.Model {
	return sequential(
		func(s dfState, i dfIn, o dfOut) (bool, dfState) {
			switch i.op {
			case dfAdd, dfUpdate:
				s.populated = true
				kind := byte(dkAdded)
				if i.op == dfUpdate {
					kind = dkUpdated
				}
				if s.appendDelta(i.key, delta(kind, i.ver)) {
					s.enqueue([]int{i.key}, false)
				}
				return true, s
			case dfDelete:
				s.populated = true
				if s.deltas[i.key] == "" && s.known[i.key] == 0 {
					return true, s // already reported, by a Replace say
				}
				if s.appendDelta(i.key, delta(dkDeleted, i.ver)) {
					s.enqueue([]int{i.key}, false)
				}
				return true, s
			case dfReplace:
				s.replace(i.list)
				return true, s
			case dfResync:
				s.resync()
				return true, s
			case dfPop:
				if o.key < 0 || o.deltas != s.deltas[o.key] {
					return false, s
				}
				initial := !s.populated || s.initial != 0
				if anyOrder {
					initial = s.initial&(1<<o.key) != 0
				}
				if initialList && o.initial != initial {
					return false, s
				}
				return s.pop(o.key, anyOrder), s
			}
			return false, s
		},
		func(i dfIn, o dfOut) string {
			switch i.op {
			case dfAdd, dfUpdate, dfDelete:
				return fmt.Sprintf("%s(k%d v%d)", [...]string{"Add", "Update", "Delete"}[i.op], i.key, i.ver)
			case dfReplace:
				return fmt.Sprintf("Replace(%s)", describeDeltas(i.list, true))
			case dfResync:
				return "Resync()"
			}
			return fmt.Sprintf("Pop() -> k%d %s initial=%v", o.key, describeDeltas(o.deltas, false), o.initial)
		},
	)
}

// describeDeltas writes encoded deltas as "[Replaced v3 Tombstone v2]", or
// a Replace list as "[k1 v3 k4 v5]".
func describeDeltas(ds string, list bool) string {
	names := map[byte]string{dkAdded: "Added", dkUpdated: "Updated", dkDeleted: "Deleted", dkTombstone: "Tombstone",
		dkReplaced: "Replaced", dkSync: "Sync", dkInvalid: "invalid"}
	var parts []string
	for i := 0; i+3 <= len(ds); i += 3 {
		v := uint16(ds[i+1])<<8 | uint16(ds[i+2])
		if list {
			parts = append(parts, fmt.Sprintf("k%d v%d", ds[i], v))
		} else {
			parts = append(parts, fmt.Sprintf("%s v%d", names[ds[i]], v))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// encodeDeltas is the model's form of what Pop handed out.
func encodeDeltas(got any) (key int, enc string) {
	ds, ok := got.(cache.Deltas)
	if !ok || len(ds) == 0 {
		return -1, ""
	}
	key = -1
	var b strings.Builder
	for _, d := range ds {
		kind, obj := byte(dkInvalid), d.Object
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			kind, obj = dkTombstone, t.Obj
			fmt.Sscanf(t.Key, "k%d", &key)
		} else {
			switch d.Type {
			case cache.Added:
				kind = dkAdded
			case cache.Updated:
				kind = dkUpdated
			case cache.Deleted:
				kind = dkDeleted
			case cache.Replaced:
				kind = dkReplaced
			case cache.Sync:
				kind = dkSync
			}
		}
		var ver uint16
		if o, ok := obj.(*storeObj); ok {
			ver, key = uint16(o.ver), o.key
		} else if obj != nil {
			kind = dkInvalid
		}
		b.WriteString(delta(kind, ver))
	}
	return key, b.String()
}

// deltaFIFOSession drives one DeltaFIFO: worker 0 pops, as an informer's
// controller does, applying each Deltas to KnownObjects; the others write.
type deltaFIFOSession struct {
	q     DeltaFIFO
	known cache.Store
	ver   atomic.Int32
	fresh int // the driver's next fresh key
}

func (s *deltaFIFOSession) nextVer() uint16 {
	v := s.ver.Add(1)
	if v > 0xffff {
		panic("linearize: out of versions; shorten the histories")
	}
	return uint16(v)
}

// process is the consumer's: it applies the newest delta to KnownObjects,
// under the queue's lock (client-go) or the key's (sharded variants).
func (s *deltaFIFOSession) process(obj any, _ bool) error {
	ds := obj.(cache.Deltas)
	d := ds.Newest()
	if d.Type == cache.Deleted {
		k, _ := encodeDeltas(ds)
		return s.known.Delete(&storeObj{key: k})
	}
	return s.known.Update(d.Object)
}

func (s *deltaFIFOSession) write(c int, op dfOp, k int, r *recorder) {
	obj := &storeObj{key: k, ver: int32(s.nextVer())}
	r.call(c, dfIn{op: op, key: k, ver: uint16(obj.ver)}, false, func() any {
		switch op {
		case dfAdd:
			_ = s.q.Add(obj)
		case dfUpdate:
			_ = s.q.Update(obj)
		default:
			_ = s.q.Delete(obj)
		}
		return dfOut{}
	})
}

func (s *deltaFIFOSession) op(rng *rand.Rand, c int, _ *workerState, r *recorder) {
	if c == 0 {
		r.call(c, dfIn{op: dfPop}, true, func() any {
			var o dfOut
			got, err := s.q.Pop(func(obj any, initial bool) error {
				o.initial = initial
				return s.process(obj, initial)
			})
			if o.key, o.deltas = encodeDeltas(got); err != nil {
				o.key = -1
			}
			return o
		})
		return
	}
	k := rng.IntN(dfWorkerKeys)
	switch n := rng.IntN(100); {
	case n < 25:
		s.write(c, dfAdd, k, r)
	case n < 50:
		s.write(c, dfUpdate, k, r)
	case n < 75:
		s.write(c, dfDelete, k, r)
	case n < 90:
		var list []any
		var enc string
		for _, k := range rng.Perm(dfWorkerKeys)[:rng.IntN(4)] {
			obj := &storeObj{key: k, ver: int32(s.nextVer())}
			list = append(list, obj)
			enc += string([]byte{byte(k), byte(obj.ver >> 8), byte(obj.ver)})
		}
		r.call(c, dfIn{op: dfReplace, list: enc}, false, func() any { _ = s.q.Replace(list, ""); return dfOut{} })
	default:
		r.call(c, dfIn{op: dfResync}, false, func() any { _ = s.q.Resync(); return dfOut{} })
	}
}

func (s *deltaFIFOSession) feed(c int, r *recorder) {
	if s.fresh == dfKeys {
		panic("linearize: out of fresh keys; shorten the histories")
	}
	k := s.fresh
	s.fresh++
	s.write(c, dfAdd, k, r)
}

func (s *deltaFIFOSession) close() { s.q.Close() }

// DeltaFIFOOptions are the options every DeltaFIFO of the histories is
// built with: an informer's (KnownObjects, EmitDeltaTypeReplaced), over the
// store given.
func DeltaFIFOOptions(known cache.KeyListerGetter) cache.DeltaFIFOOptions {
	return cache.DeltaFIFOOptions{KeyFunction: FIFOKeyFunc, KnownObjects: known, EmitDeltaTypeReplaced: true}
}

// CheckDeltaFIFO checks the DeltaFIFOs newQ builds from the options given
// against the strict model, or with anyOrder against the per-shard one;
// without initialList, isInInitialList goes unchecked.
func CheckDeltaFIFO(cfg Config, impl string, anyOrder, initialList bool, newQ func(cache.DeltaFIFOOptions) DeltaFIFO) Result {
	model := "fifo"
	if anyOrder {
		model = "any-order"
	}
	if !initialList {
		model += "/no-initial"
	}
	return check(cfg, "deltafifo", impl, model, DeltaFIFOModel(anyOrder, initialList), func() session {
		known := cache.NewStore(FIFOKeyFunc)
		return &deltaFIFOSession{q: newQ(DeltaFIFOOptions(known)), known: known, fresh: dfWorkerKeys}
	})
}

// deltaFIFOImpl is one DeltaFIFO checked: client-go's, the control, and
// each of queuelab's layouts, built from their constructors.
type deltaFIFOImpl struct {
	name     string
	anyOrder bool // declares per-shard order
	newQ     func(cache.DeltaFIFOOptions) DeltaFIFO
}

func deltaFIFOImpls() []deltaFIFOImpl {
	opts := func(o cache.DeltaFIFOOptions) deltafifo.Options { return deltafifo.Options{DeltaFIFOOptions: o} }
	return []deltaFIFOImpl{
		{registry.Baseline, false, func(o cache.DeltaFIFOOptions) DeltaFIFO { return cache.NewDeltaFIFOWithOptions(o) }},
		{"mutex", false, func(o cache.DeltaFIFOOptions) DeltaFIFO { return registry.Must(deltafifo.NewMutex(opts(o))) }},
		{"sharded", true, func(o cache.DeltaFIFOOptions) DeltaFIFO { return registry.Must(deltafifo.NewSharded(opts(o))) }},
		{"ring", false, func(o cache.DeltaFIFOOptions) DeltaFIFO { return registry.Must(deltafifo.NewRing(opts(o))) }},
	}
}

// CheckDeltaFIFOs checks client-go's DeltaFIFO and every queuelab layout;
// the sharded one, which declares per-shard order, gets the weaker model
// (and the strict one, informational). An implementation that fails is
// checked again without isInInitialList, so that one violation of the
// initial population, which ends its run, hides no other.
func CheckDeltaFIFOs(cfg Config) []Result {
	var out []Result
	for _, e := range deltaFIFOImpls() {
		r := CheckDeltaFIFO(cfg, e.name, e.anyOrder, true, e.newQ)
		rs := strictToo(r, e.anyOrder, func() Result { return CheckDeltaFIFO(cfg, e.name, false, true, e.newQ) })
		if r.Verdict == porcupine.Illegal {
			rs = slices.Insert(rs, 1, CheckDeltaFIFO(cfg, e.name, e.anyOrder, false, e.newQ))
		}
		out = append(out, rs...)
	}
	return out
}

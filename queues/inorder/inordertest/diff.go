package inordertest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/internal/queuesuite"
)

// diffKeys is the size of the key universe a differential run draws from:
// small, so keys repeat, batches close on them and relists delete them.
const diffKeys = 6

// diffSteps caps one run's operations.
const diffSteps = 400

// Diff replays the operations encoded in ops (writes, bad writes, Replace,
// Resync, Bookmark, Pop and PopBatch over a handful of keys) on a queue
// from newQueue and on client-go's RealFIFO configured alike, in each mode
// g declares (atomic as informers build it; per-object with each side's
// consumer store as KnownObjects), and fails at the first observable
// difference — an error, an event, a batch boundary, isInInitialList,
// HasSynced — printing the operation trace; a deadlock watchdog guards the
// run. Each side's consumer applies what it pops to its own store
// (queuesuite.ApplyDeltas), so per-object relists reconcile against equal
// stores. A pop that finds both queues empty is resolved by writing a
// sentinel to both (the run executes in a synctest bubble, which tells a
// blocked Pop from a slow one); a pop that blocks on one side only is a
// difference. ops may be any bytes (a fuzz target's input, or SeedOps); a
// failing ops is kept for replay (suite.KeepFailingOps).
func Diff(t *testing.T, newQueue func(opts inorder.Options) (inorder.Queue, error), g Guarantees, ops []byte) {
	t.Helper()
	suite.KeepFailingOps(t, ops)
	watchdog.Run(t, watchdog.DefaultTimeout, func() {
		if g.Atomic {
			t.Run("mode=atomic", func(t *testing.T) { diffMode(t, perTest(newQueue), ops, false) })
		}
		if g.PerObject {
			t.Run("mode=per-object", func(t *testing.T) { diffMode(t, perTest(newQueue), ops, true) })
		}
	})
}

func diffMode(t *testing.T, newQ newQueue, ops []byte, perObject bool) {
	synctest.Test(t, func(t *testing.T) {
		d := &inorderDiff{t: t, src: suite.NewOps(ops), perObject: perObject}
		d.cand = d.newSide(t, func(o inorder.Options) inorder.Queue { return newQ(t, o) })
		d.ref = d.newSide(t, func(o inorder.Options) inorder.Queue {
			if o.KnownObjects != nil {
				return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KnownObjects: o.KnownObjects})
			}
			return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true})
		})
		for step := 0; step < diffSteps && !d.src.Done(); step++ {
			d.step()
		}
		d.finish()
	})
}

// side is one queue with its consumer's store.
type side struct {
	q     inorder.Queue
	store cache.Store
}

func (d *inorderDiff) newSide(t *testing.T, build func(inorder.Options) inorder.Queue) side {
	store := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	var o inorder.Options
	if d.perObject {
		o.KnownObjects = sortedKeys{store}
	}
	return side{q: build(o), store: store}
}

// sortedKeys lists a store's keys in order, so both sides emit a relist's
// tombstones in one order (a map's would differ).
type sortedKeys struct{ cache.Store }

func (s sortedKeys) ListKeys() []string {
	keys := s.Store.ListKeys()
	slices.Sort(keys)
	return keys
}

type inorderDiff struct {
	t         *testing.T
	src       suite.Ops
	perObject bool
	cand, ref side
	rv        int
	lines     []string
}

func (d *inorderDiff) log(format string, args ...any) {
	d.lines = append(d.lines, fmt.Sprintf("%3d  ", len(d.lines))+fmt.Sprintf(format, args...))
}

func (d *inorderDiff) fail(format string, args ...any) {
	d.t.Helper()
	d.cand.q.Close()
	d.ref.q.Close()
	d.t.Fatalf("%s\nreproduce with the test's seed (or fuzz input); operations so far:\n%s",
		fmt.Sprintf(format, args...), strings.Join(d.lines, "\n"))
}

func (d *inorderDiff) object(i int) any {
	d.rv++
	return obj("k"+strconv.Itoa(i), strconv.Itoa(d.rv))
}

func (d *inorderDiff) step() {
	i := d.src.Intn(diffKeys)
	switch op := d.src.Intn(12); op {
	case 0, 1, 2, 3:
		o := d.object(i)
		if op == 3 && d.src.Intn(2) == 0 {
			o = cache.DeletedFinalStateUnknown{Key: "ns/k" + strconv.Itoa(i), Obj: o}
		}
		name := [...]string{"Add", "Update", "Delete", "Delete"}[op]
		d.log("%s(%s)", name, describeObj(o))
		d.both(name, func(q inorder.Queue) error {
			return [...]func(any) error{q.Add, q.Update, q.Delete, q.Delete}[op](o)
		})
	case 4:
		bad := [...]any{nil, "no metadata"}[i%2]
		d.log("Add(%#v)", bad)
		d.both("Add of a bad object", func(q inorder.Queue) error { return q.Add(bad) })
	case 5:
		var list []any
		for k := range diffKeys {
			if d.src.Intn(2) == 0 {
				list = append(list, d.object(k))
			}
		}
		rv := strconv.Itoa(d.rv)
		d.log("Replace(%s, %s)", describeObj(cache.ReplacedAllInfo{Objects: list}), rv)
		d.both("Replace", func(q inorder.Queue) error { return q.Replace(slices.Clone(list), rv) })
	case 6:
		d.log("Resync()")
		d.both("Resync", func(q inorder.Queue) error { return q.Resync() })
	case 7:
		rv := strconv.Itoa(d.rv)
		d.log("Bookmark(%s)", rv)
		d.both("Bookmark", func(q inorder.Queue) error { return q.Bookmark(rv) })
	case 8, 9:
		d.pop(false)
	default:
		d.pop(true)
	}
	if c, r := d.cand.q.HasSynced(), d.ref.q.HasSynced(); c != r {
		d.fail("HasSynced: candidate %v, client-go %v", c, r)
	}
}

// both applies write to both queues and compares whether it failed.
func (d *inorderDiff) both(what string, write func(inorder.Queue) error) {
	d.t.Helper()
	ce, re := write(d.cand.q), write(d.ref.q)
	if (ce == nil) != (re == nil) {
		d.fail("%s: candidate error %v, client-go error %v", what, ce, re)
	}
}

// pop pops both sides once (PopBatch with batch), applying what comes out to
// each side's store, and compares.
func (d *inorderDiff) pop(batch bool) {
	d.t.Helper()
	cc, rc := d.popAsync(d.cand, batch), d.popAsync(d.ref, batch)
	synctest.Wait()
	if len(cc) == 0 && len(rc) == 0 {
		// Both empty: a sentinel write unblocks both.
		o := d.object(diffKeys)
		d.log("(both empty) Add(%s)", describeObj(o))
		d.both("Add", func(q inorder.Queue) error { return q.Add(o) })
		synctest.Wait()
	}
	if len(cc) == 0 || len(rc) == 0 {
		d.fail("pop(batch=%v): blocked on one side only (candidate done %v, client-go done %v)", batch, len(cc) > 0, len(rc) > 0)
	}
	c, r := <-cc, <-rc
	d.log("pop(batch=%v) → %v", batch, r)
	if c.String() != r.String() {
		d.fail("pop(batch=%v): candidate %v, client-go %v", batch, c, r)
	}
}

// popAsync pops s once in a goroutine; the channel has the result once it
// returned.
func (d *inorderDiff) popAsync(s side, batch bool) chan popped {
	out := make(chan popped, 1)
	go func() {
		var p popped
		single := func(item any, initial bool) error {
			p = popped{events: describeAll(item.(cache.Deltas)), initial: initial}
			return queuesuite.ApplyDeltas(s.store, item.(cache.Deltas))
		}
		var err error
		if batch {
			err = s.q.PopBatch(func(ds []cache.Delta, initial bool) error {
				p = popped{events: describeAll(ds), initial: initial, batch: true}
				return queuesuite.ApplyDeltas(s.store, ds)
			}, single)
		} else {
			_, err = s.q.Pop(single)
		}
		if err != nil {
			p.events = append(p.events, "error: "+err.Error())
		}
		out <- p
	}()
	return out
}

// finish closes both queues and compares what remains, one Pop at a time.
func (d *inorderDiff) finish() {
	d.cand.q.Close()
	d.ref.q.Close()
	for {
		c, r := <-d.popAsync(d.cand, false), <-d.popAsync(d.ref, false)
		if c.String() != r.String() {
			d.fail("draining after Close: candidate %v, client-go %v", c, r)
		}
		if len(c.events) == 0 || strings.HasPrefix(c.events[len(c.events)-1], "error: ") {
			return
		}
	}
}

// SeedOps is the pseudo-random operation sequence a seed stands for:
// Diff(t, newQueue, g, SeedOps(seed)) replays the run a seeded test named
// by that seed made.
func SeedOps(seed uint64) []byte { return queuesuite.SeedBytes(seed, 0x10d3, seedOpsLen) }

// seedOpsLen is enough bytes for diffSteps operations of up to three
// choices each.
const seedOpsLen = 3 * diffSteps

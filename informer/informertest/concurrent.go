package informertest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// The concurrent properties draw a small stream from each of these seeds:
// a few dozen writes per seed keeps a run well under a second per
// implementation under -race, so every registry entry runs them.
const (
	concurrentSeeds = 3
	streamWriters   = 2
	streamKeys      = 4 // per writer
	streamTicks     = 10
)

// tick is the virtual time between two steps of a concurrent stream. Every
// goroutine of a stream wakes on the same ticks, so what one does on a tick
// (register, remove, add indexes) races the writes of that tick and the
// informer still handling them; the bubble's clock moves on to the next
// tick only once all of that is idle.
const tick = time.Millisecond

// sleepUntil sleeps until n ticks after start.
func sleepUntil(start time.Time, n int) { time.Sleep(time.Until(start.Add(time.Duration(n) * tick))) }

// write is one change a stream's writer makes to the Source.
type write struct {
	typ       watch.EventType
	namespace string
	name      string
	app       string
}

// stream is a seeded plan of writes: the pods the Source starts with, then
// per writer and per tick a burst of creates, updates and deletes. Each
// writer owns its keys, so the plan knows which exist and every write
// changes the Source.
type stream struct {
	initial []*corev1.Pod
	writes  [][][]write // [writer][tick]
}

func newStream(rng *rand.Rand) stream {
	var st stream
	for w := range streamWriters {
		exists := make(map[int]bool)
		pod := func(k int) (ns, name string) {
			return []string{"ns", "other"}[k%2], fmt.Sprintf("w%d-p%d", w, k)
		}
		for k := range streamKeys / 2 {
			ns, name := pod(k)
			st.initial = append(st.initial, Pod(ns, name, "v"+strconv.Itoa(rng.IntN(3))))
			exists[k] = true
		}
		bursts := make([][]write, streamTicks)
		for tk := range bursts {
			for range rng.IntN(5) {
				k := rng.IntN(streamKeys)
				ns, name := pod(k)
				wr := write{namespace: ns, name: name, app: "v" + strconv.Itoa(rng.IntN(3))}
				switch {
				case !exists[k]:
					wr.typ = watch.Added
				case rng.IntN(4) == 0:
					wr.typ = watch.Deleted
				default:
					wr.typ = watch.Modified
				}
				exists[k] = wr.typ != watch.Deleted
				bursts[tk] = append(bursts[tk], wr)
			}
		}
		st.writes = append(st.writes, bursts)
	}
	return st
}

// run starts one goroutine per writer, each applying its bursts to src on
// ticks 1, 2, ... after start.
func (st stream) run(src *Source, start time.Time, wg *sync.WaitGroup) {
	for _, bursts := range st.writes {
		wg.Go(func() {
			for tk, burst := range bursts {
				sleepUntil(start, tk+1)
				for _, w := range burst {
					switch w.typ {
					case watch.Added:
						src.Create(Pod(w.namespace, w.name, w.app))
					case watch.Modified:
						src.Update(Pod(w.namespace, w.name, w.app))
					case watch.Deleted:
						src.Delete(w.namespace, w.name)
					}
				}
			}
		})
	}
}

// synced builds an informer over a Source holding st's initial pods and
// runs it until synced and idle. stop, which returns once Run has, is for
// the end of a seed; it is also a cleanup, so a failed require stops the
// informer before the bubble checks for goroutines left.
func (s informerSuite) synced(t *testing.T, opts cache.SharedIndexInformerOptions, st stream) (f *fixture, stop func()) {
	t.Helper()
	f = s.fixture(t, opts, st.initial...)
	stop = sync.OnceFunc(f.start())
	t.Cleanup(stop)
	synctest.Wait()
	require.True(t, f.inf.HasSynced(), "informer not synced once idle")
	return f, stop
}

// change is one entry of the Source's log, as a recorder writes the
// notification a handler gets for it.
type change struct {
	line  string
	key   string
	after int // the key's resource version after the change; 0: deleted
}

// changeLog is the Source's log as the changes a handler must hear of: with
// no relist and no resync in a stream, each entry is exactly one
// notification.
type changeLog struct {
	changes []change
	byLine  map[string]int   // line → index in changes; lines are unique, each holding its resource version
	keys    map[string][]int // key → indexes in changes, in order
	final   map[string]int   // key → resource version at the end
}

func newChangeLog(t *testing.T, src *Source) changeLog {
	t.Helper()
	src.mu.Lock()
	log := slices.Clone(src.log)
	src.mu.Unlock()
	h := changeLog{byLine: make(map[string]int), keys: make(map[string][]int), final: make(map[string]int)}
	for _, ev := range log {
		p := ev.Object.(*corev1.Pod)
		k, v := key(p), rv(p)
		c := change{key: k, after: v}
		switch ev.Type {
		case watch.Added:
			c.line = fmt.Sprintf("add %s %d false", k, v)
		case watch.Modified:
			c.line = fmt.Sprintf("update %s %d->%d", k, h.final[k], v)
		case watch.Deleted:
			c.line = fmt.Sprintf("delete %s %d", k, v)
			c.after = 0
		default:
			t.Fatalf("a stream logs no %s event", ev.Type)
		}
		h.byLine[c.line] = len(h.changes)
		h.keys[k] = append(h.keys[k], len(h.changes))
		h.changes = append(h.changes, c)
		setRV(h.final, k, c.after)
	}
	return h
}

// setRV records a key's resource version, or its absence for 0.
func setRV(m map[string]int, k string, v int) {
	if v == 0 {
		delete(m, k)
		return
	}
	m[k] = v
}

// notified is one registration's notifications: the snapshot its leading
// synthetic OnAdds (isInInitialList) give, key → resource version, then
// the changes it heard of, as indexes into changeLog.changes.
type notified struct {
	snap map[string]int
	rest []int
}

// parse reads a recorder's lines: initial adds only before any change,
// each key at most once; every other line a change of the stream, word
// for word (so an update's old version must be the key's previous one).
func (h changeLog) parse(lines []string) (notified, error) {
	n := notified{snap: make(map[string]int)}
	for i, l := range lines {
		if f := strings.Fields(l); len(f) == 4 && f[0] == "add" && f[3] == "true" {
			if len(n.rest) > 0 {
				return n, fmt.Errorf("notification %d %q: an initial add after a change", i, l)
			}
			if _, dup := n.snap[f[1]]; dup {
				return n, fmt.Errorf("notification %d %q: a second initial add of %s", i, l, f[1])
			}
			v, err := strconv.Atoi(f[2])
			if err != nil {
				return n, fmt.Errorf("notification %d %q: %v", i, l, err)
			}
			n.snap[f[1]] = v
			continue
		}
		c, ok := h.byLine[l]
		if !ok {
			return n, fmt.Errorf("notification %d %q: no such change in the stream", i, l)
		}
		n.rest = append(n.rest, c)
	}
	return n, nil
}

// perKey checks, key by key, that the changes a registration heard of
// follow its snapshot: they start with the change right after the
// snapshot's version and go on in the key's order, each once, with no
// gap. attached says it was never removed: it must then have heard of
// every change and end at the final state; a removed one may stop
// anywhere, even inside its snapshot.
func (h changeLog) perKey(n notified, attached bool) error {
	for k := range n.snap {
		if _, ok := h.keys[k]; !ok {
			return fmt.Errorf("%s: an initial add of a key the stream never had", k)
		}
	}
	got := make(map[string][]int)
	for _, c := range n.rest {
		got[h.changes[c].key] = append(got[h.changes[c].key], c)
	}
	for _, k := range slices.Sorted(maps.Keys(h.keys)) {
		hist, cs := h.keys[k], got[k]
		if len(cs) == 0 {
			if attached && n.snap[k] != h.final[k] {
				return fmt.Errorf("%s: ends at version %d (0: absent), the store at %d", k, n.snap[k], h.final[k])
			}
			if v, ok := n.snap[k]; ok && !slices.ContainsFunc(hist, func(c int) bool { return h.changes[c].after == v }) {
				return fmt.Errorf("%s: initial add at version %d, which the key never had", k, v)
			}
			continue
		}
		j := slices.Index(hist, cs[0])
		before := 0
		if j > 0 {
			before = h.changes[hist[j-1]].after
		}
		if n.snap[k] != before {
			return fmt.Errorf("%s: initial version %d (0: absent), but its first change %q follows version %d", k, n.snap[k], h.changes[cs[0]].line, before)
		}
		for i, c := range cs {
			if j+i >= len(hist) || hist[j+i] != c {
				return fmt.Errorf("%s: %q where the key's next change is %s", k, h.changes[c].line, h.nextOf(hist, j+i))
			}
		}
		if attached && j+len(cs) != len(hist) {
			return fmt.Errorf("%s: missed every change after %q, from %q on", k, h.changes[cs[len(cs)-1]].line, h.changes[hist[j+len(cs)]].line)
		}
	}
	return nil
}

// sameOrder checks a registration against ref, one attached from before
// the stream began, for an informer that hands every handler its changes
// in one order across keys (guarantee.OrderFIFO: client-go distributes
// each change to every listener under one lock, and registers a listener
// under that lock too). That order is not the Source's: a DeltaFIFO pops a
// key's queued changes together, at the key's first place in the queue.
// The changes n heard of are then a run of ref's, with no gap (to the end,
// for an attached one), and its snapshot is ref's view just before that
// run: the whole store as of one moment.
func (h changeLog) sameOrder(ref, n notified, attached bool) error {
	if len(n.rest) == 0 {
		return nil // perKey held a snapshot with no change after it to the final state, or a removed one to what the keys had
	}
	q := slices.Index(ref.rest, n.rest[0])
	if q < 0 {
		return fmt.Errorf("%q: the reference handler never heard of it", h.changes[n.rest[0]].line)
	}
	for i, c := range n.rest {
		if q+i >= len(ref.rest) || ref.rest[q+i] != c {
			return fmt.Errorf("%q where the reference handler heard next of %s", h.changes[c].line, h.nextOf(ref.rest, q+i))
		}
	}
	if attached && q+len(n.rest) != len(ref.rest) {
		return fmt.Errorf("missed every change from %q on", h.changes[ref.rest[q+len(n.rest)]].line)
	}
	want := maps.Clone(ref.snap)
	for _, c := range ref.rest[:q] {
		setRV(want, h.changes[c].key, h.changes[c].after)
	}
	if !maps.Equal(n.snap, want) {
		return fmt.Errorf("initial adds %v, but the reference handler's view before %q was %v", n.snap, h.changes[n.rest[0]].line, want)
	}
	return nil
}

func (h changeLog) nextOf(hist []int, i int) string {
	if i >= len(hist) {
		return "none"
	}
	return strconv.Quote(h.changes[hist[i]].line)
}

// rvOf is the resource version a recorder's add, update or delete line
// (no tombstone: a stream has no relist) carries last.
func rvOf(line string) int {
	s := strings.Fields(line)[2]
	if _, after, ok := strings.Cut(s, "->"); ok {
		s = after
	}
	v, _ := strconv.Atoi(s)
	return v
}

// storedRVs is the informer's store as key → resource version.
func storedRVs(inf cache.SharedIndexInformer) map[string]int {
	m := make(map[string]int)
	for _, obj := range inf.GetStore().List() {
		p := obj.(*corev1.Pod)
		m[key(p)] = rv(p)
	}
	return m
}

// regPlan is when one registration comes and, unless kept, goes.
type regPlan struct {
	at, removeAt int // ticks after the stream's start
	how          string
}

const (
	kept     = "kept"
	removed  = "RemoveEventHandler"
	shutDown = "ShutDownEventHandler"
)

// regResult is what a registrar saw.
type regResult struct {
	r   *recorder
	reg cache.ResourceEventHandlerRegistration
	// linesAtRemoval: the notifications recorded when removal returned;
	// rvAtRemoval: the Source's resource version then, beyond anything the
	// informer had read.
	linesAtRemoval, rvAtRemoval int
}

// concurrentRegistration: handlers registered, removed and shut down at
// random moments while writes flow each see a consistent view. Replayed
// from its synthetic initial adds, a registration's notifications are the
// stream's changes after its snapshot, each once, in order, without gap;
// one still attached ends with exactly the informer's store. After
// RemoveEventHandler returns a handler may still be called — client-go's
// listener hands on what was distributed to it before the removal (the
// call in flight, and its pop goroutine may pass on more before it sees
// its closed channel) — but only with changes made before the removal;
// after cache.ShutDownEventHandler returns it is never called again.
func (s informerSuite) concurrentRegistration(t *testing.T) {
	for seed := range uint64(concurrentSeeds) {
		rng := rand.New(rand.NewPCG(seed, 0x636f6e63726567))
		st := newStream(rng)
		plans := make([]regPlan, 6)
		for i := range plans {
			plans[i] = regPlan{at: rng.IntN(streamTicks + 1), how: []string{kept, removed, shutDown}[i%3]}
			plans[i].removeAt = plans[i].at + rng.IntN(streamTicks+2-plans[i].at)
		}
		f, stop := s.synced(t, cache.SharedIndexInformerOptions{}, st)
		refRec := &recorder{}
		add(t, f.inf, refRec)

		start := time.Now()
		var wg sync.WaitGroup
		st.run(f.src, start, &wg)
		results := make([]regResult, len(plans))
		for i, p := range plans {
			res := &results[i]
			res.r = &recorder{}
			wg.Go(func() {
				sleepUntil(start, p.at)
				var err error
				res.reg, err = f.inf.AddEventHandler(res.r)
				if !assert.NoError(t, err, "seed %d: registration %d", seed, i) || p.how == kept {
					return
				}
				sleepUntil(start, p.removeAt)
				if p.how == removed {
					err = f.inf.RemoveEventHandler(res.reg)
				} else {
					err = cache.ShutDownEventHandler(f.inf, res.reg)
				}
				assert.NoError(t, err, "seed %d: registration %d: %s", seed, i, p.how)
				res.linesAtRemoval = res.r.Count()
				res.rvAtRemoval, _ = strconv.Atoi(f.src.ResourceVersion())
			})
		}
		wg.Wait()
		synctest.Wait()

		h := newChangeLog(t, f.src)
		require.Equal(t, h.final, storedRVs(f.inf), "seed %d: the informer's store against the Source", seed)
		ref, err := h.parse(refRec.Got())
		if err == nil {
			err = h.perKey(ref, true)
		}
		require.NoError(t, err, "seed %d: the reference handler, attached before the stream\nnotifications:\n  %s", seed, strings.Join(refRec.Got(), "\n  "))
		for i, p := range plans {
			res := results[i]
			if res.reg == nil {
				continue
			}
			what := fmt.Sprintf("seed %d: registration %d (added on tick %d, %s on tick %d)", seed, i, p.at, p.how, p.removeAt)
			if p.how == kept {
				what = fmt.Sprintf("seed %d: registration %d (added on tick %d, kept)", seed, i, p.at)
			}
			lines := res.r.Got()
			n, err := h.parse(lines)
			if err == nil {
				err = h.perKey(n, p.how == kept)
			}
			if err == nil && s.order == guarantee.OrderFIFO {
				err = h.sameOrder(ref, n, p.how == kept)
			}
			if err != nil {
				t.Errorf("%s: %v\nnotifications:\n  %s", what, err, strings.Join(lines, "\n  "))
			}
			switch p.how {
			case kept:
				assert.True(t, res.reg.HasSynced(), what)
			case removed:
				for _, l := range lines[res.linesAtRemoval:] {
					assert.LessOrEqual(t, rvOf(l), res.rvAtRemoval, "%s: %q after the removal returned is of a later change", what, l)
				}
			case shutDown:
				assert.Len(t, lines, res.linesAtRemoval, "%s: called after ShutDownEventHandler returned", what)
			}
		}
		stop()
	}
}

// addIndexersWhileWriting: indexes added while writes flow — client-go
// allows AddIndexers until the informer stops, and builds a new index over
// what is stored under the store's lock, so each write lands before (and
// is indexed by the build) or after (and indexes itself) — are exact for
// the final store, as are the ones given at construction; a name conflict
// fails without adding any of the call's indexes.
func (s informerSuite) addIndexersWhileWriting(t *testing.T) {
	indexFuncs := map[string]cache.IndexFunc{
		"app":                appIndex,
		"late-app":           appIndex,
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
	}
	for seed := range uint64(concurrentSeeds) {
		rng := rand.New(rand.NewPCG(seed, 0x696e6465786573))
		st := newStream(rng)
		f, stop := s.synced(t, cache.SharedIndexInformerOptions{Indexers: cache.Indexers{"app": appIndex}}, st)

		start := time.Now()
		var wg sync.WaitGroup
		st.run(f.src, start, &wg)
		for _, name := range []string{"late-app", cache.NamespaceIndex} {
			at := 1 + rng.IntN(streamTicks)
			wg.Go(func() {
				sleepUntil(start, at)
				assert.NoError(t, f.inf.AddIndexers(cache.Indexers{name: indexFuncs[name]}), "seed %d: AddIndexers(%s) on tick %d", seed, name, at)
			})
		}
		conflictAt := 1 + rng.IntN(streamTicks)
		wg.Go(func() {
			sleepUntil(start, conflictAt)
			assert.Error(t, f.inf.AddIndexers(cache.Indexers{"app": appIndex, "never": appIndex}), "seed %d: an index name in use", seed)
		})
		wg.Wait()
		synctest.Wait()

		idx := f.inf.GetIndexer()
		require.Equal(t, newChangeLog(t, f.src).final, storedRVs(f.inf), "seed %d: the informer's store against the Source", seed)
		assert.NotContains(t, idx.GetIndexers(), "never", "seed %d: a conflicting AddIndexers half-applied", seed)
		for name, fn := range indexFuncs {
			want := make(map[string][]string)
			for _, obj := range idx.List() {
				vals, err := fn(obj)
				require.NoError(t, err)
				for _, v := range vals {
					want[v] = append(want[v], key(obj.(*corev1.Pod)))
				}
			}
			assert.ElementsMatch(t, slices.Collect(maps.Keys(want)), idx.ListIndexFuncValues(name), "seed %d: values of index %s", seed, name)
			for v, keys := range want {
				got, err := idx.IndexKeys(name, v)
				require.NoError(t, err)
				assert.ElementsMatch(t, keys, got, "seed %d: IndexKeys(%s, %s)", seed, name, v)
				objs, err := idx.ByIndex(name, v)
				require.NoError(t, err)
				var byIndex []string
				for _, obj := range objs {
					byIndex = append(byIndex, key(obj.(*corev1.Pod)))
				}
				assert.ElementsMatch(t, keys, byIndex, "seed %d: ByIndex(%s, %s)", seed, name, v)
			}
		}
		stop()
	}
}

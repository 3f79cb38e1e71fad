package pipeline

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	corev1 "k8s.io/api/core/v1"

	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/metrics"
)

// Footprint is what Options.Footprint adds to a store pipeline's Result:
// what an informer costs at scale, after a restart and through a relist.
type Footprint struct {
	// Synced is the time from the initial List's response to every listed
	// object applied to the store with its handler notified: the
	// informer's part of a restart. The source building the response is
	// left out (Result.Sync includes it).
	Synced time.Duration `json:"synced_ns,omitempty"`
	// ObjectBytes is the live heap the initial list's objects take held
	// alone, per object: the same objects rebuilt into a slice, live heap
	// after runtime.GC with the slice filled minus before; measured once
	// per stream's objects, in its first footprint run.
	ObjectBytes float64 `json:"object_bytes_per_object,omitempty"`
	// OwnPerObject is the heap the informer's own structures hold per
	// object once synced: live heap after runtime.GC at sync minus the
	// live heap before the informer was built, minus ObjectBytes' total,
	// over the objects listed. The objects are shared with the source (a
	// List hands the Reflector the source's own), so they count once.
	OwnPerObject float64 `json:"own_bytes_per_object,omitempty"`
	// RelistPeakHeap is the peak of heap object bytes (live and not yet
	// swept, as Peaks.PeakHeap) above the heap before the informer was
	// built, sampled within relist windows: from a relist's List until
	// the handler was notified of every object it returned, each at
	// least at its listed version.
	RelistPeakHeap uint64 `json:"relist_peak_heap_bytes,omitempty"`
	// RelistTime is the longest relist window.
	RelistTime time.Duration `json:"relist_ns,omitempty"`
	// RelistsApplied counts the relist windows that closed: every relist
	// of a correct run.
	RelistsApplied int64 `json:"relists_applied,omitempty"`
	// RelistLatency is the staleness (Result.Latency) of the changes
	// emitted within a relist window (measured, like Result.Latency, from
	// the key's oldest change not yet applied): what a relist makes the
	// watch's changes wait.
	RelistLatency metrics.Quantiles `json:"relist_latency"`
}

// relists follows a footprint run's lists (watchsrc.Source.OnList) and
// the handler's notifications, timing the initial sync and opening a
// window at each relist that closes once the handler has been notified
// of every listed object at its listed version or newer (a later change,
// its deletion). A relist that begins before the last one closed ends it
// unclosed.
type relists struct {
	e *env
	// want is, per key, the listed resourceVersion the current window
	// waits to be notified of (0: none).
	want []atomic.Uint64
	left atomic.Int64
	open atomic.Bool
	// listedAt is when the initial List returned (run clock, ns).
	listedAt atomic.Int64
	// spans are the windows so far, the last one open while open is set;
	// each is replaced, never changed, so the handler reads them without
	// a lock.
	spans   atomic.Pointer[[]span]
	longest atomic.Int64
	applied atomic.Int64
	peak    atomic.Uint64
	// lat is recorded by the handler's goroutine alone.
	lat *metrics.Latency
}

// span is a relist window on the run's clock, [from, to] in ns.
type span struct{ from, to int64 }

func newRelists(e *env) *relists {
	w := &relists{e: e, want: make([]atomic.Uint64, e.stream.Universe()), lat: metrics.NewLatency()}
	w.spans.Store(&[]span{})
	return w
}

// setSpans replaces the windows with f of a copy of them.
func (w *relists) setSpans(f func([]span) []span) {
	w.spans.Store(ptr(f(slices.Clone(*w.spans.Load()))))
}

func ptr[T any](v T) *T { return &v }

// listed is the source's OnList.
func (w *relists) listed(items []*corev1.Pod, relist bool) {
	if !relist {
		w.listedAt.Store(w.e.now())
		return
	}
	w.end(false)
	for k := range w.want {
		w.want[k].Store(0)
	}
	// left before want: a notification racing this (an event of the
	// previous watch still in the FIFO at a listed version) finds left
	// counting it.
	w.left.Store(int64(len(items)))
	for _, p := range items {
		k, kok := gen.KeyIndex(p.Name)
		rv, rok := gen.RV(p)
		if kok && rok && k < len(w.want) {
			w.want[k].Store(rv)
		}
	}
	w.setSpans(func(s []span) []span { return append(s, span{from: w.e.now(), to: math.MaxInt64}) })
	w.open.Store(true)
	w.sample()
	if len(items) == 0 {
		w.end(true)
	}
}

// notified is told of every notification of key k at resourceVersion rv
// (deleted: a deletion, any version).
func (w *relists) notified(k int, rv uint64, deleted bool) {
	want := w.want[k].Load()
	if want == 0 || (!deleted && rv < want) || !w.want[k].CompareAndSwap(want, 0) {
		return
	}
	if w.left.Add(-1) == 0 {
		w.end(true)
	}
}

// end closes the open window, if any; applied says every listed object
// was notified (false: the next relist cut it short).
func (w *relists) end(applied bool) {
	w.sample()
	if !w.open.CompareAndSwap(true, false) {
		return
	}
	now := w.e.now()
	var d int64
	w.setSpans(func(s []span) []span {
		last := &s[len(s)-1]
		last.to, d = now, now-last.from
		return s
	})
	if !applied {
		return
	}
	for {
		cur := w.longest.Load()
		if d <= cur || w.longest.CompareAndSwap(cur, d) {
			break
		}
	}
	w.applied.Add(1)
}

// sample is the sampler's gauge: the heap while a window is open.
func (w *relists) sample() int64 {
	if !w.open.Load() {
		return 0
	}
	h := metrics.HeapObjects()
	for {
		cur := w.peak.Load()
		if h <= cur || w.peak.CompareAndSwap(cur, h) {
			return int64(h)
		}
	}
}

// record adds the staleness of a change just applied if the change was
// emitted within a window.
func (w *relists) record(latency int64) {
	emitted := w.e.now() - latency
	for _, s := range *w.spans.Load() {
		if emitted >= s.from && emitted <= s.to {
			w.lat.Record(latency)
			return
		}
	}
}

// atSync fills the sync-time part of f: the time to synced and the heap
// per object, the run's live heap at sync being heap0 before the informer
// was built; n objects were listed, objs.Build(k, k+1) for k < n, as the
// source builds them.
func (w *relists) atSync(f *Footprint, heap0 uint64, objs *gen.Objects, n int) {
	f.Synced = time.Duration(w.e.now() - w.listedAt.Load())
	if n == 0 {
		return
	}
	total := sub(metrics.LiveHeap(), heap0)
	alone := objectBytes(objs, n)
	f.ObjectBytes = float64(alone) / float64(n)
	f.OwnPerObject = (float64(total) - float64(alone)) / float64(n)
}

// finish fills the relist part of f, heap0 being the live heap before the
// informer was built.
func (w *relists) finish(f *Footprint, heap0 uint64) {
	f.RelistPeakHeap = sub(w.peak.Load(), heap0)
	f.RelistTime = time.Duration(w.longest.Load())
	f.RelistsApplied = w.applied.Load()
	f.RelistLatency = w.lat.Quantiles()
}

// aloneKey names one measurement of objectsAlone; weak, so a finished
// scenario's objects are not kept alive by it.
type aloneKey struct {
	objs weak.Pointer[gen.Objects]
	n    int
}

// alone holds objectsAlone's measurements: the objects are the same for
// every stack a scenario runs, so each stack's own heap is its total
// minus one figure, and a million objects are rebuilt once, not per stack.
var alone sync.Map // aloneKey → uint64

// objectBytes is objectsAlone(objs, n), measured once per objs and n.
func objectBytes(objs *gen.Objects, n int) uint64 {
	key := aloneKey{weak.Make(objs), n}
	if v, ok := alone.Load(key); ok {
		return v.(uint64)
	}
	b := objectsAlone(objs, n)
	alone.Store(key, b)
	return b
}

// objectsAlone measures the live heap of the initial list's n objects
// held by nothing but a slice allocated beforehand: the same Build calls
// the source makes, between two runtime.GCs.
func objectsAlone(objs *gen.Objects, n int) uint64 {
	held := make([]*corev1.Pod, n)
	before := metrics.LiveHeap()
	for k := range held {
		held[k] = objs.Build(k, uint64(k+1))
	}
	after := metrics.LiveHeap()
	runtime.KeepAlive(held)
	return sub(after, before)
}

// Package watchsrc serves a generated stream to client-go's real Reflector
// through a cache.ListWatch: List returns the current state (turning missed
// deletes into tombstones the Reflector's Replace will find), Watch emits the
// stream's events on a watch.Interface, ends the watch with "410 Gone" at a
// relist marker, closes it cleanly at a disconnect marker and resumes from
// the resourceVersion the Reflector asks for — the protocol an API server
// speaks, minus the network and the decoding. Injected faults (Inject) add
// the ways that protocol fails: closes, "410 Gone", refused watches and
// internal errors at seeded positions.
package watchsrc

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
)

// Source is a generated stream served as a ListerWatcher. At most one watch
// is active at a time (the Reflector stops one before listing or watching
// again), and the active watch's goroutine is the only one touching the
// replay state; Stop waits for it to exit before List or the next Watch runs.
type Source struct {
	stream *gen.Stream
	objs   *gen.Objects
	led    *account.Ledger
	sched  gen.Schedule
	base   time.Time

	// OnResync is called, from the emitting goroutine, at every resync
	// marker; the pipeline points it at its queue's Resync, as the
	// Reflector's resync timer would, and counts what that returns.
	OnResync func()
	// OnEmit, if set, is called from the emitting goroutine for every
	// watch event just before the ledger books its emission, with the same
	// key, resourceVersion and time: controllers measure how long the
	// informer's store takes to show it (lister staleness).
	OnEmit func(k int, rv uint64, at int64)
	// OnList, if set, is called from List with the objects it returns,
	// before the Reflector has them (relist false for the initial list):
	// a footprint run times the relist from here until every one was
	// applied.
	OnList func(items []*corev1.Pod, relist bool)

	gate      chan struct{}
	startOnce sync.Once
	pacer     *gen.Pacer
	startAt   int64
	exhausted chan struct{}
	// exhaustedAt is when exhausted was closed (run clock, ns).
	exhaustedAt atomic.Int64

	mu     sync.Mutex // serializes List and Watch set-up
	active *watcher

	// Replay state, owned by the active watcher or by List.
	cur    []*corev1.Pod // the truth so far: newest object per key, nil if absent
	view   []bool        // what the Reflector was told: present per delivered events
	next   int           // positions before next have taken effect
	objIdx int           // object events taken effect (the pacing index)
	ended  bool

	// waitAt is when the source sent the Reflector into its backoff (a
	// "410 Gone", an injected error; run clock, ns; 0: none pending); the
	// next List or Watch ends the pause.
	waitAt int64
	// faults are the injected faults by position, nextFault the first not
	// fired yet; refuse fails the next Watch call (FaultRefused).
	faults    []scheduled
	nextFault int
	refuse    bool

	lists, relists, disconnects, watches atomic.Int64
	refused, internal, injected, resyncs atomic.Int64
	paused                               atomic.Int64
	backingOff                           atomic.Bool
}

// New serves s (objects built by objs), recording emissions in led on the
// clock that started at base; events are released on sched once Start is
// called.
func New(s *gen.Stream, objs *gen.Objects, led *account.Ledger, sched gen.Schedule, base time.Time) *Source {
	return &Source{
		stream:    s,
		objs:      objs,
		led:       led,
		sched:     sched,
		base:      base,
		gate:      make(chan struct{}),
		exhausted: make(chan struct{}),
		cur:       make([]*corev1.Pod, s.Universe()),
		view:      make([]bool, s.Universe()),
	}
}

// Start releases the stream: watches opened before block until then, so the
// pipeline's initial sync is not measured as part of the stream.
func (s *Source) Start() {
	s.startOnce.Do(func() {
		now := time.Now()
		s.pacer = gen.NewPacer(s.sched, now)
		s.startAt = int64(now.Sub(s.base))
		close(s.gate)
	})
}

// Exhausted is closed once every stream position has taken effect.
func (s *Source) Exhausted() <-chan struct{} { return s.exhausted }

// ExhaustedAt is when Exhausted was closed, on the run's clock (the base
// New was given); 0 before.
func (s *Source) ExhaustedAt() time.Duration { return time.Duration(s.exhaustedAt.Load()) }

// Stats are the protocol events the Reflector went through.
type Stats struct {
	// Lists counts List calls (1 initial + one per relist in a healthy run).
	Lists int64
	// Relists and Disconnects count watches ended by "410 Gone" and by a
	// clean close (stream markers and injected faults alike).
	Relists, Disconnects int64
	// Refused counts Watch calls failed with "429 Too Many Requests",
	// InternalErrors watches ended by a "500 Internal Error" event; only
	// injected faults cause them.
	Refused, InternalErrors int64 `json:",omitempty"`
	// Injected counts the injected faults that fired (Inject).
	Injected int64 `json:",omitempty"`
	// Resyncs counts the resync markers that took effect.
	Resyncs int64
	// Watches counts Watch calls.
	Watches int64
	// Paused is the time from every "410 Gone" or injected watch error to
	// the List or Watch that followed: the Reflector's backoff (0.8 s and
	// doubling, in client-go's shipped informer) plus the hand-over. A
	// real-time wait meant for failures minutes apart, it would swamp a
	// stream that compresses minutes of simulated time into seconds, so the
	// schedule is paused over it and pipelines leave it out of their
	// measured time.
	Paused time.Duration
}

// Stats reports what happened so far.
func (s *Source) Stats() Stats {
	return Stats{Lists: s.lists.Load(), Relists: s.relists.Load(), Disconnects: s.disconnects.Load(), Watches: s.watches.Load(),
		Refused: s.refused.Load(), InternalErrors: s.internal.Load(), Injected: s.injected.Load(), Resyncs: s.resyncs.Load(),
		Paused: time.Duration(s.paused.Load())}
}

// BackingOff reports whether the source sent the Reflector into its
// backoff ("410 Gone", an injected watch error) and it has not listed or
// watched again yet: it is waiting, not stalled.
func (s *Source) BackingOff() bool { return s.backingOff.Load() }

// backOff starts a pause: the Reflector now waits out its backoff.
func (s *Source) backOff() {
	s.waitAt = s.now()
	s.backingOff.Store(true)
}

// resume ends the pause backOff started, if any, moving the schedule
// past it; the caller holds mu.
func (s *Source) resume() {
	if s.waitAt == 0 {
		return
	}
	gap := time.Duration(s.now() - s.waitAt)
	s.waitAt = 0
	s.backingOff.Store(false)
	s.pacer.Pause(gap)
	s.startAt += int64(gap)
	s.paused.Add(int64(gap))
}

// IsWatchListSemanticsUnSupported opts the Reflector out of WatchList
// (streaming lists): the source speaks list-then-watch. client-go consults
// it through cache.ToListWatcherWithWatchListSemantics.
func (s *Source) IsWatchListSemanticsUnSupported() bool { return true }

// ListerWatcher returns the cache.ListWatch the Reflector consumes.
func (s *Source) ListerWatcher() cache.ListerWatcher {
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc:  s.list,
		WatchFuncWithContext: s.watch,
	}, s)
}

func (s *Source) now() int64 { return int64(time.Since(s.base)) }

// list returns the state after every position that took effect. Keys the
// Reflector was told exist but do not (missed deletes) are left out, which
// makes the Reflector's Replace emit their tombstones; the ledger now
// expects those deletions.
func (s *Source) list(_ context.Context, _ metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil {
		return nil, fmt.Errorf("watchsrc: List while a watch is active")
	}
	s.resume()
	now := s.now()
	// Counted once the list is built and booked, so a List count > 0 means
	// the initial sync's changes are in the ledger.
	defer s.lists.Add(1)
	if s.lists.Load() == 0 {
		for k := range s.stream.Config.Objects {
			rv := uint64(k + 1)
			s.cur[k] = s.objs.Build(k, rv)
			s.led.Emit(k, rv, false, now)
		}
	}
	items := make([]*corev1.Pod, 0, len(s.cur))
	for k, obj := range s.cur {
		if obj != nil {
			items = append(items, obj)
		} else if s.view[k] {
			s.led.Emit(k, s.stream.RVAt(s.next), true, now)
			// The Replace deletes it as a tombstone, which no transform
			// sees: announce the write here (see account.Ledger.Begin).
			s.led.Begin(k)
		}
		s.view[k] = obj != nil
	}
	if s.OnList != nil {
		s.OnList(items, s.lists.Load() > 0)
	}
	l := &podList{Items: items}
	l.ResourceVersion = strconv.FormatUint(s.stream.RVAt(s.next), 10)
	return l, nil
}

// watch resumes the stream after resourceVersion opts.ResourceVersion.
func (s *Source) watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	rv, err := strconv.ParseUint(opts.ResourceVersion, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("watchsrc: watch needs a resourceVersion, got %q", opts.ResourceVersion)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil {
		return nil, fmt.Errorf("watchsrc: a watch is already active")
	}
	s.watches.Add(1)
	s.resume()
	if s.refuse {
		s.refuse = false
		s.refused.Add(1)
		s.backOff()
		return nil, apierrors.NewTooManyRequests("queuelab: injected 429", 1)
	}
	events := s.stream.Events
	// Everything up to rv reached the Reflector; markers carrying rv that
	// have not taken effect yet (positions >= next) still must.
	pos := sort.Search(len(events), func(i int) bool { return events[i].RV > rv })
	pos = min(pos, s.next)
	w := &watcher{
		src:    s,
		ch:     make(chan watch.Event, watch.DefaultChanSize),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		ctx:    ctx,
		pos:    pos,
		sentOK: false,
	}
	s.active = w
	go w.run()
	return w, nil
}

func (s *Source) release(w *watcher) {
	s.mu.Lock()
	if s.active == w {
		s.active = nil
	}
	s.mu.Unlock()
}

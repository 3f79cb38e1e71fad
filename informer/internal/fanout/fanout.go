// Package fanout delivers an informer's notifications to its handler
// registrations.
//
// client-go (v0.37) gives every registration a processorListener: two
// goroutines joined by unbuffered channels and a growing ring of boxed
// notifications, plus a third that waits for the informer's sync, so each
// notification costs every handler two channel hand-offs, two
// goroutine switches and an allocation. Here a registration is one
// goroutine and two reusable slices of Event values: the informer's
// consumer appends a whole batch to each registration under that
// registration's own mutex and wakes it at most once; the goroutine swaps
// the slices and calls its handler for the batch without any lock held. So
// the consumer (the store's only writer) never waits for a handler, a slow
// handler delays nobody else, nothing is dropped while the registration
// lives, and each handler sees its events in the order they were handed
// over. A handler that panics is handled as the registration's PanicPolicy
// says: client-go's utilruntime.HandleCrash by default. Once the slices have grown to the backlog, the fan-out (Push and
// the run loop) allocates nothing per event or per handler
// (TestPushDoesNotAllocatePerEvent); slices a burst grew past keepEvents
// are released once drained (TestDrainedBurstIsReleased), and smaller ones
// once the batches after the burst stay far smaller
// (TestBuffersShrinkAfterBurst), so an initial list does not pin its size.
// The informer path before the fan-out does
// allocate:
// BenchmarkInformerFanout counts about 5 allocations per event whatever
// the number of handlers, in the FIFO's and the store's key strings.
package fanout

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/cache/synctrack"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Kind is the handler method an Event calls.
type Kind uint8

// The three handler methods.
const (
	Add Kind = iota + 1
	Update
	Delete
)

// Event is one notification, held by value so buffering it allocates
// nothing.
type Event struct {
	// Obj is the new object (Add, Update) or the deleted one, possibly a
	// cache.DeletedFinalStateUnknown (Delete).
	Obj any
	// Old is the previous object of an Update.
	Old any
	// Kind selects the handler method.
	Kind Kind
	// InInitialList is OnAdd's isInInitialList.
	InInitialList bool
	// Sync marks an Update that only repeats the stored object (a resync,
	// or a relist that found it unchanged); it goes only to registrations
	// whose resync period is due, as with client-go.
	Sync bool
}

// PanicPolicy is what a registration does when its handler panics.
type PanicPolicy uint8

const (
	// Crash is client-go's processorListener: the panic goes to
	// utilruntime.HandleCrash, which logs it with its location and stack
	// through utilruntime.PanicHandlers and re-panics while
	// utilruntime.ReallyCrash is true (its default), ending the process.
	// With ReallyCrash off the event is skipped, an initial-list add is not
	// counted as delivered (the registration never reports synced, as with
	// client-go), and the registration waits crashPause before its next
	// notification.
	Crash PanicPolicy = iota
	// Skip logs the panic as Crash does, then skips the event and delivers
	// the next one at once, whatever utilruntime.ReallyCrash says; an
	// initial-list add that panicked counts as delivered.
	Skip
)

// crashPause is how long a registration whose handler panicked under Crash
// (with utilruntime.ReallyCrash off) waits before its next notification:
// client-go's processorListener sleeps a second so a handler failing on
// every object does not spin.
const crashPause = time.Second

// Fanout is the set of handler registrations of one informer.
type Fanout struct {
	clock  clock.Clock
	panics PanicPolicy

	// mu guards the fields below. Push holds it shared, so registrations
	// cannot come and go during a hand-off; ShouldResync holds it
	// exclusively because it flips the registrations' syncing flags.
	mu        sync.RWMutex
	listeners []*Listener
	running   bool
	stopped   bool
	synced    bool
	wg        sync.WaitGroup
}

// New returns an empty Fanout whose resync schedule and crash pauses read
// c, and whose registrations handle panics as panics says.
func New(c clock.Clock, panics PanicPolicy) *Fanout { return &Fanout{clock: c, panics: panics} }

// Listener is one handler registration; it is the
// cache.ResourceEventHandlerRegistration an informer hands back.
type Listener struct {
	handler cache.ResourceEventHandler
	logger  klog.Logger
	tracker *synctrack.SingleFileTracker
	clock   clock.Clock
	panics  PanicPolicy

	// Resync schedule, under the Fanout's lock (syncing is read under the
	// shared lock, written under the exclusive one).
	requested  time.Duration
	period     time.Duration
	nextResync time.Time
	syncing    bool

	mu      sync.Mutex
	cond    sync.Cond
	pending []Event // appended by Push, taken whole by run
	waiting bool    // run is parked on cond
	removed atomic.Bool
	quit    chan struct{} // closed at removal, to end a crash pause
	started bool
	done    chan struct{} // closed once run has returned, or at removal if it never ran
}

var _ cache.ResourceEventHandlerRegistration = (*Listener)(nil)

// ErrStopped: the informer has stopped, so it takes no new handlers.
var ErrStopped = errors.New("fanout: informer has stopped")

// Add registers handler with a resync period of period (0: never), as
// requested (what the caller asked for, kept to recompute period when the
// informer's check period changes). initial is handed to the new
// registration as OnAdd(obj, true), before any later Push; synced tells it
// that the informer itself has synced. The caller holds off Push while
// listing initial so nothing is missed or doubled.
func (f *Fanout) Add(handler cache.ResourceEventHandler, name string, logger klog.Logger, requested, period time.Duration, initial []any) (*Listener, error) {
	l := &Listener{
		handler:   handler,
		logger:    logger,
		tracker:   synctrack.NewSingleFileTracker(name),
		requested: requested,
		period:    period,
		syncing:   true,
		clock:     f.clock,
		panics:    f.panics,
		quit:      make(chan struct{}),
		done:      make(chan struct{}),
	}
	l.cond.L = &l.mu
	l.nextResync = f.clock.Now().Add(period)
	l.pending = make([]Event, 0, max(len(initial), 16))
	for _, obj := range initial {
		l.tracker.Start()
		l.pending = append(l.pending, Event{Kind: Add, Obj: obj, InInitialList: true})
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return nil, ErrStopped
	}
	f.listeners = append(f.listeners, l)
	if f.running {
		f.start(l)
	}
	if f.synced {
		l.tracker.UpstreamHasSynced()
	}
	return l, nil
}

// Remove stops delivery to l: the notification in progress finishes, the
// rest of its backlog is dropped, as with client-go. Removing a listener
// twice, or one of another Fanout, does nothing.
func (f *Fanout) Remove(l *Listener) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.listeners {
		if x == l {
			f.listeners = slices.Delete(f.listeners, i, i+1)
			l.stop()
			return
		}
	}
}

// Start starts delivery to every registration.
func (f *Fanout) Start() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running || f.stopped {
		return
	}
	f.running = true
	for _, l := range f.listeners {
		f.start(l)
	}
}

func (f *Fanout) start(l *Listener) {
	l.started = true
	f.wg.Go(l.run)
}

// Stop ends delivery to every registration and waits until no handler is
// running. Backlogs are dropped, as client-go drops them: the informer is
// going away. Later Adds fail with ErrStopped.
func (f *Fanout) Stop() {
	f.mu.Lock()
	f.stopped = true
	for _, l := range f.listeners {
		l.stop()
	}
	f.listeners = nil
	f.mu.Unlock()
	f.wg.Wait()
}

// Synced tells every registration, present and future, that the informer
// has synced; each then reports synced once its initial adds are
// delivered.
func (f *Fanout) Synced() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.synced = true
	for _, l := range f.listeners {
		l.tracker.UpstreamHasSynced()
	}
}

// Push hands events, in order, to every registration: Sync updates only to
// those whose resync is due. It never waits for a handler.
func (f *Fanout) Push(events []Event) {
	if len(events) == 0 {
		return
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, l := range f.listeners {
		l.push(events)
	}
}

// ShouldResync is the Reflector's ShouldResync: it marks the registrations
// whose period has elapsed as syncing (the next Sync updates go to them
// alone), schedules their next resync and reports whether any is due.
func (f *Fanout) ShouldResync() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	due := false
	for _, l := range f.listeners {
		l.syncing = l.period != 0 && !now.Before(l.nextResync)
		if l.syncing {
			due = true
			l.nextResync = now.Add(l.period)
		}
	}
	return due
}

// SetCheckPeriod recomputes every registration's period against a new
// informer resync check period, with fix applied to what each requested.
func (f *Fanout) SetCheckPeriod(fix func(requested time.Duration) time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range f.listeners {
		l.period = fix(l.requested)
	}
}

func (l *Listener) push(events []Event) {
	l.mu.Lock()
	if l.removed.Load() {
		l.mu.Unlock()
		return
	}
	for i := range events {
		e := &events[i]
		if e.Sync && !l.syncing {
			continue
		}
		if e.Kind == Add && e.InInitialList {
			l.tracker.Start()
		}
		l.pending = append(l.pending, *e)
	}
	wake := l.waiting && len(l.pending) > 0
	l.mu.Unlock()
	if wake {
		l.cond.Signal()
	}
}

// stop ends l's delivery; the caller holds the Fanout's lock.
func (l *Listener) stop() {
	l.mu.Lock()
	l.removed.Store(true)
	clear(l.pending)
	l.pending = l.pending[:0]
	l.mu.Unlock()
	l.cond.Signal()
	close(l.quit)
	if !l.started {
		close(l.done)
	}
}

// run delivers l's backlog batch by batch until l is removed.
func (l *Listener) run() {
	defer close(l.done)
	var spare []Event // the drained batch, emptied, for Push to refill
	recent := 0       // the batches' recent size (see fit)
	crashed := false  // the last handler call panicked: pause before the next
	for {
		l.mu.Lock()
		for len(l.pending) == 0 && !l.removed.Load() {
			l.waiting = true
			l.cond.Wait()
			l.waiting = false
		}
		if l.removed.Load() {
			l.mu.Unlock()
			return
		}
		batch := l.pending
		l.pending = spare
		l.mu.Unlock()

		for i := range batch {
			if crashed && !l.pause() || l.removed.Load() {
				break
			}
			crashed = !l.deliver(&batch[i])
		}
		recent = max(len(batch), recent-recent/8)
		spare = fit(batch, recent) // outside the lock Push takes
	}
}

// minKeep sets the floor of fit: a buffer of up to 4 × minKeep events
// (256, 10 KB) is kept whatever size its batches have been.
const minKeep = 64

// fit recycles a registration's drained buffer for its next batch unless
// the buffer is far larger than the batches it has been carrying: recent
// follows the batches' size, jumping up to a large one and decaying by an
// eighth per batch, so a buffer more than four times recent is dropped (a
// dozen or so small batches after an initial list of 2,000 objects), while
// batches of a steady size, or small ones with a large one every few, keep
// theirs and allocate nothing (TestMixedBatchesAllocateNothing).
// keepEvents alone let each registration pin two buffers sized to the
// largest batch the consumer pops (client-go's 1,000 events, 40 KB each)
// for the informer's life, and kube-controller-manager's shape has one
// registration per controller on an informer (controller-many: 20). A
// registration that gets no batch at all after a burst keeps its buffers,
// within keepEvents.
func fit(buf []Event, recent int) []Event {
	if cap(buf) > 4*max(recent, minKeep) {
		return nil
	}
	return Recycle(buf)
}

// keepEvents is the largest event buffer kept for reuse once drained.
// Buffers grow to the backlog they hold, and an initial list of 50,000
// objects would otherwise pin 2 MB per registration (and as much in the
// consumer) for the informer's life while later batches use a few entries
// of it. Up to this size reuse keeps the hand-off free of allocations;
// past it a burst pays a handful of slice growths.
const keepEvents = 4096

// Recycle empties a drained event buffer of its objects and returns it for
// reuse, or nil if it is larger than keepEvents.
func Recycle(buf []Event) []Event {
	if cap(buf) > keepEvents {
		return nil
	}
	clear(buf)
	return buf[:0]
}

// pause waits crashPause after a panic, as client-go's listener does
// before its next notification; it reports false if l was removed
// meanwhile.
func (l *Listener) pause() bool {
	t := l.clock.NewTimer(crashPause)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-l.quit:
		return false
	}
}

// deliver calls the handler for e and reports whether the next event may
// follow at once: false after a panic that Crash let through (ReallyCrash
// off). An initial-list add counts as delivered once the handler returns,
// or under Skip once its panic is logged.
func (l *Listener) deliver(e *Event) (next bool) {
	initial := e.Kind == Add && e.InInitialList
	if l.panics == Skip {
		defer func() {
			if r := recover(); r != nil {
				logPanic(l.logger, r)
				if initial {
					l.tracker.Finished()
				}
				next = true
			}
		}()
	} else {
		// Deferred directly, as client-go defers it, so the location it
		// logs is the handler's.
		defer utilruntime.HandleCrashWithLogger(l.logger)
	}
	switch e.Kind {
	case Add:
		l.handler.OnAdd(e.Obj, e.InInitialList)
	case Update:
		l.handler.OnUpdate(e.Old, e.Obj)
	case Delete:
		l.handler.OnDelete(e.Obj)
	}
	if initial {
		l.tracker.Finished()
	}
	return true
}

// logPanic hands r to utilruntime.PanicHandlers as utilruntime.HandleCrash
// does, without re-panicking. It is called from the deferred function that
// recovered r, so the frame that panicked is as far from the handlers' log
// call (this function, the deferred one, runtime.gopanic) as HandleCrash's
// depth of 4 puts it.
func logPanic(logger klog.Logger, r any) {
	ctx := klog.NewContext(context.Background(), logger.WithCallDepth(4))
	for _, fn := range utilruntime.PanicHandlers {
		fn(ctx, r)
	}
}

// HasSynced reports whether the informer has synced and every object of
// this registration's initial list has been delivered to its handler.
func (l *Listener) HasSynced() bool { return l.tracker.HasSynced() }

// HasSyncedChecker is HasSynced as a channel, for cache.WaitFor.
func (l *Listener) HasSyncedChecker() cache.DoneChecker { return l.tracker }

// ShutdownChan is closed once the registration's handler has returned for
// the last time after its removal; cache.ShutDownEventHandler waits on it.
func (l *Listener) ShutdownChan() <-chan struct{} { return l.done }

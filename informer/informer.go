package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/queuelab/queuelab/informer/consumer"
	"github.com/queuelab/queuelab/informer/internal/fanout"
	"github.com/queuelab/queuelab/stores"
)

// minimumResyncPeriod is the shortest handler resync period, as in
// client-go: a shorter request is raised to it.
const minimumResyncPeriod = time.Second

// Options configures an Informer. The zero value (plus indexers, if any)
// gives client-go's informer semantics over the default FIFO and store
// (the zero FIFO and Store).
type Options struct {
	// SharedIndexInformerOptions is what client-go's
	// NewSharedIndexInformerWithOptions takes: ResyncPeriod, Indexers,
	// ObjectDescription, and the Identifier and InformerMetricsProvider
	// that metrics are published under. As with client-go, metrics are
	// published only for a reserved Identifier: the store's resource
	// version always, the FIFO's by a FIFO with PublishesMetrics
	// (RealFIFO). A reserved Identifier with any other FIFO is an error,
	// not metrics silently missing.
	cache.SharedIndexInformerOptions
	// FIFO is the queue the Reflector fills: RealFIFO(), InOrderFIFO(...),
	// DeltaFIFO(...) or one of the caller's; the zero value is the lab's
	// in-order mutex FIFO.
	FIFO FIFO
	// Store is the store listers read: StoreOf(...), ClientGoStore() or
	// one of the caller's; the zero value is the snapshot store.
	Store Store
	// RecoverHandlerPanics makes a handler that panics lose only the event
	// it panicked on: the panic is logged as utilruntime.HandleCrash logs
	// it (location and stack), the event is skipped and the next one
	// follows at once, whatever utilruntime.ReallyCrash says. By default a
	// panic is client-go's: HandleCrash re-panics while ReallyCrash is true
	// (its default), ending the process so the controller restarts and
	// relists, because a skipped notification may never be repaired by a
	// resync. Set it where one handler's bug must not take down the other
	// controllers of the process and a missed event is acceptable.
	RecoverHandlerPanics bool
}

// Informer is a cache.SharedIndexInformer built from the lab's parts:
// client-go's Reflector (through cache.New) feeding Options.FIFO, one
// consumer applying what it pops to Options.Store (batches as one
// transaction), and a fan-out that hands each handler registration its
// notifications in batches on one goroutine of its own.
type Informer struct {
	lw      cache.ListerWatcher
	example runtime.Object
	desc    string
	fifo    cache.Queue
	// storeRV publishes the store's resource version metric (nil unless
	// ident is reserved): an empty client-go store whose Bookmark sets the
	// gauge as client-go's store does on every write, through the provider
	// client-go would pick. lastRV is the version it last published; the
	// consumer alone touches both.
	storeRV cache.ThreadSafeStore
	lastRV  string

	indexer  *stores.Indexer
	fan      *fanout.Fanout
	mutation cache.MutationDetector
	synced   chan struct{} // closed once the FIFO's first list is processed

	// mu guards the lifecycle and the settings that freeze at Run.
	mu                sync.Mutex
	started, stopped  bool
	controller        cache.Controller
	resyncCheckPeriod time.Duration
	defaultResync     time.Duration
	watchErrorHandler cache.WatchErrorHandlerWithContext
	transform         cache.TransformFunc

	// block is held by the consumer for each pop and by registrations and
	// removals, so a late handler's initial list is exactly the store its
	// first notification follows.
	block   sync.Mutex
	apply   *consumer.Consumer
	collect collector
}

var _ cache.SharedIndexInformer = (*Informer)(nil)

// NewSharedIndexInformer returns an informer for the objects lw lists and
// watches, of exampleObject's type, configured by opts. It builds the FIFO
// and the store at once, so a part's invalid options, a nil lw, a negative
// resync period or a reserved Identifier with a FIFO that publishes no
// metrics is an error here, not at Run.
func NewSharedIndexInformer(lw cache.ListerWatcher, exampleObject runtime.Object, opts Options) (*Informer, error) {
	if lw == nil {
		return nil, errors.New("informer: nil ListerWatcher")
	}
	if err := opts.check(); err != nil {
		return nil, err
	}
	var storeRV cache.ThreadSafeStore
	if opts.Identifier.Reserved() {
		storeRV = cache.NewThreadSafeStore(cache.Indexers{}, cache.Indices{}, cache.WithThreadSafeStoreMetrics(opts.Identifier, opts.InformerMetricsProvider))
	}
	indexers := opts.Indexers
	if indexers == nil {
		indexers = cache.Indexers{}
	}
	store, err := opts.Store.orDefault().New(indexers)
	if err != nil {
		return nil, fmt.Errorf("informer: store: %w", err)
	}
	s := &Informer{
		lw:                lw,
		example:           exampleObject,
		desc:              opts.ObjectDescription,
		storeRV:           storeRV,
		indexer:           stores.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, store),
		fan:               fanout.New(clock.RealClock{}, panicPolicy(opts.RecoverHandlerPanics)),
		mutation:          cache.NewCacheMutationDetector(fmt.Sprintf("%T", exampleObject)),
		synced:            make(chan struct{}),
		resyncCheckPeriod: opts.ResyncPeriod,
		defaultResync:     opts.ResyncPeriod,
	}
	// The transform is read when the Reflector queues an object, after Run
	// froze it (Run holds mu, then starts the Reflector).
	if s.fifo, err = opts.FIFO.orDefault().New(FIFOConfig{
		Name:            fmt.Sprintf("informer FIFO %T", exampleObject),
		KnownObjects:    s.indexer,
		Transformer:     s.applyTransform,
		Identifier:      opts.Identifier,
		MetricsProvider: opts.InformerMetricsProvider,
	}); err != nil {
		return nil, fmt.Errorf("informer: FIFO: %w", err)
	}
	s.collect.mutation, s.collect.fan = s.mutation, s.fan
	if s.apply, err = consumer.New(consumer.Options{Store: s.indexer, Handler: &s.collect}); err != nil {
		return nil, err // unreachable: the store is set
	}
	return s, nil
}

// applyTransform is the FIFO's transformer: SetTransform's function, or
// the object unchanged.
func (s *Informer) applyTransform(obj any) (any, error) {
	if s.transform == nil {
		return obj, nil
	}
	return s.transform(obj)
}

// panicPolicy is the fan-out's policy for Options.RecoverHandlerPanics.
func panicPolicy(recoverPanics bool) fanout.PanicPolicy {
	if recoverPanics {
		return fanout.Skip
	}
	return fanout.Crash
}

// check rejects the settings no part can honour, before any is built.
func (opts Options) check() error {
	switch {
	case opts.ResyncPeriod < 0:
		return fmt.Errorf("informer: negative resync period %v", opts.ResyncPeriod)
	case opts.FIFO.PublishesMetrics && opts.FIFO.New == nil:
		return errors.New("informer: FIFO.PublishesMetrics is set without FIFO.New")
	case opts.Identifier.Reserved() && !opts.FIFO.PublishesMetrics:
		return fmt.Errorf("informer: the FIFO publishes no metrics, but Identifier %q asks for client-go's FIFO metrics: use FIFO: informer.RealFIFO(), or leave Identifier unset",
			opts.Identifier.Name())
	}
	return nil
}

// MustNewSharedIndexInformer is NewSharedIndexInformer for callers whose
// signature cannot return an error (informer factories, controller-runtime's
// NewInformer); it panics on invalid options. Check the options once with
// NewInformerFunc instead where possible.
func MustNewSharedIndexInformer(lw cache.ListerWatcher, exampleObject runtime.Object, opts Options) *Informer {
	s, err := NewSharedIndexInformer(lw, exampleObject, opts)
	if err != nil {
		panic(err)
	}
	return s
}

// Run is RunWithContext until stopCh closes.
func (s *Informer) Run(stopCh <-chan struct{}) { s.RunWithContext(wait.ContextForChannel(stopCh)) }

// RunWithContext lists, watches and delivers until ctx is done, then stops
// the handlers and returns once none is running. An informer runs once.
func (s *Informer) RunWithContext(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)

	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		logger.Info("Warning: the informer has started, run more than once is not allowed")
		return
	}
	q := s.fifo
	if b, ok := q.(cache.QueueWithBatch); ok {
		q = &batchingQueue{Queue: q, batch: b, process: func(ds []cache.Delta, initial bool) error { return s.processBatch(logger, ds, initial) }}
	}
	s.controller = cache.New(&cache.Config{
		Queue:                        q,
		ListerWatcher:                s.lw,
		ObjectType:                   s.example,
		ObjectDescription:            s.desc,
		FullResyncPeriod:             s.resyncCheckPeriod,
		ShouldResync:                 s.fan.ShouldResync,
		Process:                      func(obj any, initial bool) error { return s.process(logger, obj, initial) },
		WatchErrorHandlerWithContext: s.watchErrorHandler,
	})
	s.started = true
	s.mu.Unlock()

	s.fan.Start()
	stopHelpers := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { s.mutation.Run(stopHelpers) })
	wg.Go(func() {
		select {
		case <-stopHelpers:
		case <-s.controller.HasSyncedChecker().Done():
			close(s.synced)
			s.fan.Synced()
		}
	})

	s.controller.RunWithContext(ctx)

	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	close(stopHelpers)
	wg.Wait()
	s.fan.Stop()
}

// process is the controller's Process: one Pop of the FIFO, which may be a
// whole relist (ReplacedAll) or resync (SyncAll) of an in-order FIFO.
func (s *Informer) process(logger klog.Logger, obj any, initial bool) error {
	s.block.Lock()
	defer s.block.Unlock()
	return s.applied(logger, s.apply.Process(obj, initial))
}

// processBatch is the controller's ProcessBatch: one PopBatch, one
// transaction when the store supports it, one hand-off to each handler.
func (s *Informer) processBatch(logger klog.Logger, deltas []cache.Delta, initial bool) error {
	s.block.Lock()
	defer s.block.Unlock()
	return s.applied(logger, s.apply.ProcessBatch(deltas, initial))
}

// publishStoreRV sets the store resource version metric to the version
// the store has reached, once per pop: the value client-go's store sets
// on each of the pop's writes, last one winning.
func (s *Informer) publishStoreRV() {
	if s.storeRV == nil {
		return
	}
	if rv := s.indexer.LastStoreSyncResourceVersion(); rv != s.lastRV {
		s.lastRV = rv
		s.storeRV.Bookmark(rv)
	}
}

// applied ends a pop the store has taken, under block: it publishes the
// store's resource version, hands the pop's notifications to the handlers
// and reports err, which client-go's controller would drop silently: the
// store and the handlers then miss a change until the next relist.
func (s *Informer) applied(logger klog.Logger, err error) error {
	s.publishStoreRV()
	s.collect.flush()
	if err != nil {
		utilruntime.HandleErrorWithLogger(logger, err, "Informer could not apply a change to its store", "objectType", fmt.Sprintf("%T", s.example))
	}
	return err
}

// HasSynced reports whether the store holds at least one full list. It
// says nothing of the handlers: ask a registration for that.
func (s *Informer) HasSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker is HasSynced as a channel, for cache.WaitFor.
func (s *Informer) HasSyncedChecker() cache.DoneChecker { return syncedChecker{s} }

type syncedChecker struct{ s *Informer }

func (c syncedChecker) Name() string          { return fmt.Sprintf("SharedIndexInformer %T", c.s.example) }
func (c syncedChecker) Done() <-chan struct{} { return c.s.synced }

// LastSyncResourceVersion is the resource version of the last list or
// watch event the Reflector saw ("" before Run).
func (s *Informer) LastSyncResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.controller == nil {
		return ""
	}
	return s.controller.LastSyncResourceVersion()
}

// GetStore returns the informer's store; listers read it. Objects in it
// are shared: treat them as read-only.
func (s *Informer) GetStore() cache.Store { return s.indexer }

// GetIndexer returns the informer's store with its indexes.
func (s *Informer) GetIndexer() cache.Indexer { return s.indexer }

// AddIndexers adds indexes, built over what is stored already; an index
// name in use is an error, as is adding to a stopped informer (with
// client-go's message).
func (s *Informer) AddIndexers(indexers cache.Indexers) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("indexer was not added because it has stopped already")
	}
	return s.indexer.AddIndexers(indexers)
}

// GetController returns a view of the informer as a cache.Controller whose
// Run does nothing (the informer runs itself), as client-go's does.
func (s *Informer) GetController() cache.Controller { return controllerView{s} }

type controllerView struct{ s *Informer }

func (v controllerView) RunWithContext(context.Context)      {}
func (v controllerView) Run(<-chan struct{})                 {}
func (v controllerView) HasSynced() bool                     { return v.s.HasSynced() }
func (v controllerView) HasSyncedChecker() cache.DoneChecker { return v.s.HasSyncedChecker() }
func (v controllerView) LastSyncResourceVersion() string     { return v.s.LastSyncResourceVersion() }

// SetWatchErrorHandler sets the function told of every failed list or
// watch; only before Run.
func (s *Informer) SetWatchErrorHandler(handler cache.WatchErrorHandler) error {
	return s.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) { handler(r, err) })
}

// SetWatchErrorHandlerWithContext is SetWatchErrorHandler with the
// informer's context; only before Run.
func (s *Informer) SetWatchErrorHandlerWithContext(handler cache.WatchErrorHandlerWithContext) error {
	return s.beforeRun(func() { s.watchErrorHandler = handler })
}

// SetTransform sets the function applied to every object before it is
// queued and stored (to strip fields and save memory); only before Run. An
// object it fails on is reported and skipped, as client-go does.
func (s *Informer) SetTransform(handler cache.TransformFunc) error {
	return s.beforeRun(func() { s.transform = handler })
}

// beforeRun applies a setting that Run freezes, or reports that it is
// too late with client-go's message.
func (s *Informer) beforeRun(set func()) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("informer has already started")
	}
	set()
	return nil
}

// IsStopped reports whether Run has returned (or is returning); a stopped
// informer takes no handlers and never runs again.
func (s *Informer) IsStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// AddEventHandler registers handler with the informer's default resync
// period.
func (s *Informer) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, cache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod registers handler with its own resync
// period (0: no resyncs).
func (s *Informer) AddEventHandlerWithResyncPeriod(handler cache.ResourceEventHandler, resyncPeriod time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, cache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions registers handler. Resync periods follow
// client-go, with its warnings logged: raised to one second at least;
// before Run a shorter period than the informer's shortens the informer's
// check period, after Run it is raised to it; with no check period (an
// informer built with no ResyncPeriod and no handler asking for one
// before Run) there are no resyncs. A handler added after Run first gets
// an OnAdd(obj, true) for every stored object. A nil handler or a stopped
// informer is an error, the latter with client-go's message.
func (s *Informer) AddEventHandlerWithOptions(handler cache.ResourceEventHandler, options cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errors.New("informer: nil event handler")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, stoppedError(handler)
	}
	logger := ptr.Deref(options.Logger, klog.Background())
	resync := ptr.Deref(options.ResyncPeriod, s.defaultResync)
	if resync > 0 {
		if resync < minimumResyncPeriod {
			logger.Info("Warning: resync period is too small. Changing it to the minimum allowed value", "resyncPeriod", resync, "minimumResyncPeriod", minimumResyncPeriod)
			resync = minimumResyncPeriod
		}
		if resync < s.resyncCheckPeriod {
			if s.started {
				logger.Info("Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period", "resyncPeriod", resync, "resyncCheckPeriod", s.resyncCheckPeriod)
				resync = s.resyncCheckPeriod
			} else {
				check := resync
				s.resyncCheckPeriod = check
				s.fan.SetCheckPeriod(func(requested time.Duration) time.Duration { return effectivePeriod(logger, requested, check) })
			}
		}
	}
	name := fmt.Sprintf("SharedIndexInformer %T + event handler %T", s.example, handler)
	period := effectivePeriod(logger, resync, s.resyncCheckPeriod)
	var initial []any
	if s.started {
		s.block.Lock()
		defer s.block.Unlock()
		initial = s.indexer.List()
	}
	l, err := s.fan.Add(handler, name, logger, resync, period, initial)
	if err != nil { // fanout.ErrStopped, its only error
		return nil, stoppedError(handler)
	}
	return l, nil
}

// stoppedError is client-go's error for a handler added to a stopped
// informer, word for word: callers match it.
func stoppedError(handler cache.ResourceEventHandler) error {
	return fmt.Errorf("handler %v was not added to shared informer because it has stopped already", handler)
}

// effectivePeriod is a handler's resync period under the informer's check
// period: none when either is zero, never below the check period. A
// period dropped or raised is logged with client-go's warning, so a
// handler that asked for resyncs an informer cannot give learns why.
func effectivePeriod(logger klog.Logger, requested, check time.Duration) time.Duration {
	switch {
	case requested == 0:
		return 0
	case check == 0:
		logger.Info("Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing", "desired", requested)
		return 0
	case requested < check:
		logger.Info("Warning: the specified resyncPeriod is being increased to the minimum resyncCheckPeriod", "desired", requested, "resyncCheckPeriod", check)
		return check
	}
	return requested
}

// RemoveEventHandler stops delivery to a registration; what it had not yet
// been handed is dropped, as with client-go. cache.ShutDownEventHandler
// also waits for its handler to return. Removing twice does nothing; a
// registration of another informer type is an error that starts as
// client-go's does ("invalid key type"), naming the type where client-go's
// prints a malformed %t verb.
func (s *Informer) RemoveEventHandler(handle cache.ResourceEventHandlerRegistration) error {
	l, ok := handle.(*fanout.Listener)
	if !ok {
		return fmt.Errorf("invalid key type %T: not a registration of this informer", handle)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.block.Lock()
	defer s.block.Unlock()
	s.fan.Remove(l)
	return nil
}

// Package informertest is the conformance suite for cache.SharedIndexInformer
// implementations: client-go's cache.NewSharedIndexInformer passes it, and
// so must every informer of informer. Each property runs an informer
// against Source, an offline API server, inside a testing/synctest bubble:
// time is virtual (resyncs and relist back-offs take no real time),
// synctest.Wait makes "everything delivered" a precise moment instead of a
// poll, and the bubble fails the test if the stopped informer leaves a
// goroutine behind.
package informertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/queuelab/queuelab/guarantee"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/watchdog"
)

// NewInformer builds a fresh informer over lw, with client-go's
// constructor's arguments.
type NewInformer func(t *testing.T, lw cache.ListerWatcher, exampleObject runtime.Object, opts cache.SharedIndexInformerOptions) cache.SharedIndexInformer

// Guarantees declares what an informer promises beyond the
// cache.SharedIndexInformer contract, which every informer keeps; the suite
// tests exactly what they declare. The zero value is client-go's informer.
type Guarantees struct {
	// Order is the order across keys in which the informer's handlers hear
	// of changes: guarantee.OrderFIFO (the zero value) as client-go's
	// RealFIFO keeps it; with guarantee.OrderPerShard (a sharded DeltaFIFO)
	// the properties check each key's order alone. Per-key order is never
	// relaxed.
	Order guarantee.Order
	// Ext declares that the informer recovers a handler's panic and skips
	// only its event even while utilruntime.ReallyCrash is on
	// (informer.Options.RecoverHandlerPanics; client-go's listener re-panics
	// then, crashing the process). The [ext] property then runs in place of
	// the one holding panics to client-go's behaviour.
	Ext bool
}

// Run runs one subtest per property of the informer contract against
// informers built by newInformer, which declares g.
func Run(t *testing.T, newInformer NewInformer, g Guarantees) {
	t.Helper()
	s := informerSuite{newInformer: newInformer, order: g.Order}
	props := []suite.Property{
		{Name: "add-update-delete-in-order", Run: s.addUpdateDelete},
		{Name: "late-handler-gets-synthetic-adds", Run: s.lateHandler},
		{Name: "per-handler-resync-periods", Run: s.resyncPeriods},
		{Name: "remove-event-handler", Run: s.removeHandler},
		{Name: "registration-synced-after-its-initial-list", Run: s.registrationSynced},
		{Name: "transform-applies-before-store-and-handlers", Run: s.transform},
		{Name: "list-error-reaches-watch-error-handler", Run: s.listError},
		{Name: "relist-reports-vanished-objects", Run: s.relist},
		{Name: "per-key-order-exactly-once", Run: s.perKeyOrder},
		{Name: "concurrent-registrations-replay-to-the-store", Run: s.concurrentRegistration},
		{Name: "slow-handler-blocks-nobody", Run: s.slowHandler},
		{Name: "panicking-handler-pauses-without-really-crash", Skip: suite.Unless(!g.Ext, "[ext] the informer recovers handler panics instead"), Run: s.panickingHandler},
		{Name: "panicking-handler-is-recovered-with-really-crash", Skip: suite.Unless(g.Ext, "[ext] client-go re-panics while utilruntime.ReallyCrash is on"), Run: s.panickingHandlerRecovered},
		{Name: "failing-transform-is-contained", Run: s.failingTransform},
		{Name: "object-without-metadata-is-contained", Run: s.noMetadata},
		{Name: "settings-freeze-at-run", Run: s.settingsFreeze},
		{Name: "stop-ends-everything", Run: s.stop},
		{Name: "last-sync-resource-version", Run: s.lastSyncRV},
		{Name: "indexers-before-and-after-run", Run: s.indexers},
		{Name: "add-indexers-while-writes-flow", Run: s.addIndexersWhileWriting},
		{Name: "get-controller-reports-the-informer", Run: s.getController},
	}
	for i := range props {
		run := props[i].Run
		props[i].Run = func(t *testing.T) { synctest.Test(t, run) }
	}
	suite.Run(t, watchdog.DefaultTimeout, props)
}

type informerSuite struct {
	newInformer NewInformer
	order       guarantee.Order
}

// errorPause outlasts utilruntime.HandleError's pause of its caller. The
// pause is measured from the previous error, which may have been taken in
// real time (the clock starts at process start) while a bubble's clock
// starts in 2000: the caller then sleeps decades of virtual time, which
// the test must sleep through too, before what follows the error arrives.
const errorPause = 200 * 365 * 24 * time.Hour

// assertOrdered checks that got is want: in want's order under
// guarantee.OrderFIFO, or under OrderPerShard the same events with each
// key's in want's order (keys of different shards may overtake each other).
func (s informerSuite) assertOrdered(t *testing.T, want, got []string, msg string) {
	t.Helper()
	if s.order == guarantee.OrderFIFO {
		assert.Equal(t, want, got, msg)
		return
	}
	assert.ElementsMatch(t, want, got, msg)
	perKey := func(lines []string) map[string][]string {
		m := make(map[string][]string)
		for _, l := range lines {
			k := strings.Fields(l)[1]
			m[k] = append(m[k], l)
		}
		return m
	}
	assert.Equal(t, perKey(want), perKey(got), msg+" (per key)")
}

// fixture is one informer over one Source, running in the bubble.
type fixture struct {
	src *Source
	inf cache.SharedIndexInformer
}

func (s informerSuite) fixture(t *testing.T, opts cache.SharedIndexInformerOptions, pods ...*corev1.Pod) *fixture {
	src := NewSource(pods...)
	return &fixture{src: src, inf: s.newInformer(t, src.ListerWatcher(), &corev1.Pod{}, opts)}
}

// start runs the informer until the returned stop is called, which
// returns once Run has.
func (f *fixture) start() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.inf.RunWithContext(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// run starts the informer, stopped at cleanup, and waits until everything
// is idle.
func (f *fixture) run(t *testing.T) {
	t.Cleanup(f.start())
	synctest.Wait()
	require.True(t, f.inf.HasSynced(), "informer not synced once idle")
}

func add(t *testing.T, inf cache.SharedIndexInformer, h cache.ResourceEventHandler) cache.ResourceEventHandlerRegistration {
	t.Helper()
	reg, err := inf.AddEventHandler(h)
	require.NoError(t, err)
	return reg
}

func storedKeys(inf cache.SharedIndexInformer) []string {
	keys := inf.GetStore().ListKeys()
	sort.Strings(keys)
	return keys
}

func storedRV(t *testing.T, inf cache.SharedIndexInformer, k string) string {
	t.Helper()
	obj, ok, err := inf.GetStore().GetByKey(k)
	require.NoError(t, err)
	require.True(t, ok, "%s not stored", k)
	return obj.(*corev1.Pod).ResourceVersion
}

func (s informerSuite) addUpdateDelete(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"), Pod("ns", "b", "x"))
	r := &recorder{}
	reg := add(t, f.inf, r)
	f.run(t)
	assert.True(t, reg.HasSynced())
	assert.ElementsMatch(t, []string{"add ns/a 1 true", "add ns/b 2 true"}, r.Got())

	f.src.Create(Pod("ns", "c", "y"))
	f.src.Update(Pod("ns", "a", "z"))
	f.src.Delete("ns", "b")
	synctest.Wait()
	s.assertOrdered(t, []string{"add ns/c 3 false", "update ns/a 1->4", "delete ns/b 5"}, r.Got()[2:], "after the initial list")
	assert.Equal(t, []string{"ns/a", "ns/c"}, storedKeys(f.inf))
	assert.Equal(t, "4", storedRV(t, f.inf, "ns/a"))
}

func (s informerSuite) lateHandler(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"), Pod("ns", "b", "x"))
	f.run(t)
	f.src.Update(Pod("ns", "a", "y"))
	synctest.Wait()

	r := &recorder{}
	reg := add(t, f.inf, r)
	f.src.Create(Pod("ns", "c", "y"))
	synctest.Wait()
	got := r.Got()
	require.Len(t, got, 3)
	assert.ElementsMatch(t, []string{"add ns/a 3 true", "add ns/b 2 true"}, got[:2], "synthetic adds: the store as it is")
	assert.Equal(t, "add ns/c 4 false", got[2])
	assert.True(t, reg.HasSynced())
}

func (s informerSuite) resyncPeriods(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{ResyncPeriod: time.Hour}, Pod("ns", "a", "x"), Pod("ns", "b", "x"))
	every2s, never, byDefault := &recorder{}, &recorder{}, &recorder{}
	_, err := f.inf.AddEventHandlerWithResyncPeriod(every2s, 2*time.Second)
	require.NoError(t, err)
	_, err = f.inf.AddEventHandlerWithOptions(never, cache.HandlerOptions{ResyncPeriod: new(time.Duration)})
	require.NoError(t, err)
	add(t, f.inf, byDefault)
	f.run(t)

	time.Sleep(5 * time.Second)
	synctest.Wait()
	resyncs := func(r *recorder) []string {
		var out []string
		for _, l := range r.Got() {
			if strings.HasPrefix(l, "update ") {
				out = append(out, l)
			}
		}
		return out
	}
	got := resyncs(every2s)
	assert.ElementsMatch(t, []string{"update ns/a 1->1", "update ns/b 2->2", "update ns/a 1->1", "update ns/b 2->2"}, got,
		"a 2s handler resyncs at 2s and 4s within 5s")
	assert.Empty(t, resyncs(never), "a handler asking for no resync")
	assert.Empty(t, resyncs(byDefault), "a handler with the informer's hourly period")
}

func (s informerSuite) removeHandler(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"))
	removed, kept, shut := &recorder{}, &recorder{}, &recorder{}
	reg := add(t, f.inf, removed)
	add(t, f.inf, kept)
	shutReg := add(t, f.inf, shut)
	f.run(t)

	require.NoError(t, f.inf.RemoveEventHandler(reg))
	require.NoError(t, f.inf.RemoveEventHandler(reg), "removing twice")
	require.NoError(t, cache.ShutDownEventHandler(f.inf, shutReg))
	f.src.Create(Pod("ns", "b", "x"))
	synctest.Wait()
	assert.Equal(t, []string{"add ns/a 1 true"}, removed.Got())
	assert.Equal(t, []string{"add ns/a 1 true"}, shut.Got())
	assert.Equal(t, []string{"add ns/a 1 true", "add ns/b 2 false"}, kept.Got())
}

func (s informerSuite) registrationSynced(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"), Pod("ns", "b", "x"))
	gate := make(chan struct{})
	slow := &recorder{gate: gate}
	reg := add(t, f.inf, slow)
	fast := add(t, f.inf, &recorder{})
	assert.False(t, reg.HasSynced(), "before Run")
	f.run(t)
	assert.True(t, fast.HasSynced())
	assert.False(t, reg.HasSynced(), "its initial adds are not delivered yet")
	gate <- struct{}{}
	synctest.Wait()
	assert.False(t, reg.HasSynced(), "one of two initial adds delivered")
	close(gate)
	synctest.Wait()
	assert.True(t, reg.HasSynced())
	select {
	case <-reg.HasSyncedChecker().Done():
	default:
		t.Error("HasSyncedChecker not done though HasSynced")
	}
}

func (s informerSuite) transform(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"))
	require.NoError(t, f.inf.SetTransform(func(obj any) (any, error) {
		if p, ok := obj.(*corev1.Pod); ok {
			p.Labels = map[string]string{"transformed": p.Labels["app"]}
		}
		return obj, nil
	}))
	r := &recorder{}
	add(t, f.inf, r)
	f.run(t)
	f.src.Create(Pod("ns", "b", "y"))
	synctest.Wait()
	for _, k := range []string{"ns/a", "ns/b"} {
		obj, _, _ := f.inf.GetStore().GetByKey(k)
		assert.Equal(t, map[string]string{"transformed": map[string]string{"ns/a": "x", "ns/b": "y"}[k]}, obj.(*corev1.Pod).Labels, k)
	}
	assert.Len(t, r.Got(), 2)
}

func (s informerSuite) listError(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"))
	f.src.FailLists(ErrListFailed)
	var mu sync.Mutex
	var errs []error
	require.NoError(t, f.inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}))
	r := &recorder{}
	add(t, f.inf, r)
	defer f.start()()
	time.Sleep(10 * time.Second) // past the Reflector's back-off
	synctest.Wait()
	mu.Lock()
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrListFailed)
	mu.Unlock()
	assert.True(t, f.inf.HasSynced(), "synced by the list after the failed one")
	assert.Equal(t, []string{"add ns/a 1 true"}, r.Got())
}

func (s informerSuite) relist(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"), Pod("ns", "b", "x"), Pod("ns", "c", "x"))
	r := &recorder{}
	add(t, f.inf, r)
	f.run(t)

	f.src.Forget("ns", "b")
	f.src.Put(Pod("ns", "c", "y"))
	f.src.Put(Pod("ns", "d", "y"))
	f.src.Expire()
	time.Sleep(10 * time.Second) // past the Reflector's back-off
	synctest.Wait()
	got := r.Got()[3:]
	assert.ElementsMatch(t, []string{
		"delete ns/b unknown(2)", // the last state stored, in a tombstone
		"update ns/a 1->1",       // unchanged: a sync, which a handler without resync schedule still gets
		"update ns/c 3->5",
		"add ns/d 6 false",
	}, got)
	assert.Equal(t, []string{"ns/a", "ns/c", "ns/d"}, storedKeys(f.inf))
	// The relist's own events, after it, still flow.
	f.src.Update(Pod("ns", "d", "z"))
	synctest.Wait()
	assert.Equal(t, "update ns/d 6->7", r.Got()[len(r.Got())-1])
}

func (s informerSuite) perKeyOrder(t *testing.T) {
	const keys, updates, writers = 8, 40, 4
	f := s.fixture(t, cache.SharedIndexInformerOptions{})
	rs := []*recorder{{}, {}, {}}
	for _, r := range rs {
		add(t, f.inf, r)
	}
	f.run(t)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for k := w; k < keys; k += writers {
				name := fmt.Sprintf("p%d", k)
				f.src.Create(Pod("ns", name, "0"))
				for u := range updates {
					f.src.Update(Pod("ns", name, fmt.Sprint(u+1)))
				}
			}
		})
	}
	wg.Wait()
	synctest.Wait()

	final := f.src.Pods()
	for i, r := range rs {
		last := make(map[string]int)
		seen := make(map[string]int)
		for _, line := range r.Got() {
			fields := strings.Fields(line)
			k, rv := fields[1], fields[2]
			if old, cur, ok := strings.Cut(rv, "->"); ok {
				require.Equal(t, fmt.Sprint(last[k]), old, "handler %d: %q does not follow its key's previous event", i, line)
				rv = cur
			}
			var v int
			fmt.Sscan(rv, &v)
			require.Greater(t, v, last[k], "handler %d: %q out of order", i, line)
			last[k] = v
			seen[k]++
		}
		for k, p := range final {
			assert.Equal(t, 1+updates, seen[k], "handler %d: events for %s", i, k)
			assert.Equal(t, p.ResourceVersion, fmt.Sprint(last[k]), "handler %d: last event for %s", i, k)
			assert.Equal(t, p.ResourceVersion, storedRV(t, f.inf, k))
		}
	}
}

func (s informerSuite) slowHandler(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"))
	gate := make(chan struct{})
	slow, fast := &recorder{gate: gate}, &recorder{}
	add(t, f.inf, slow)
	add(t, f.inf, fast)
	f.run(t)
	for i := range 200 {
		f.src.Create(Pod("ns", fmt.Sprint("p", i), "x"))
	}
	synctest.Wait()
	assert.Equal(t, 201, fast.Count(), "the other handler got everything")
	assert.Len(t, storedKeys(f.inf), 201, "the store got everything")
	assert.Zero(t, slow.Count())
	close(gate)
	synctest.Wait()
	assert.Equal(t, fast.Got(), slow.Got(), "the slow handler then gets the same, in the same order")
}

// panicking runs an informer holding ns/i with a handler that does not
// panic, then registers one that panics on its synthetic initial add of
// ns/i and on the add of ns/b (registered late so its initial add is
// counted before the informer's sync reaches it, whatever the FIFO), and
// creates ns/a, ns/b and ns/c; it returns once all is idle. The other
// handler and the store must have everything at once.
func (s informerSuite) panicking(t *testing.T) (bad *recorder, badReg cache.ResourceEventHandlerRegistration, inf cache.SharedIndexInformer) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "i", "x"))
	good := &recorder{}
	add(t, f.inf, good)
	f.run(t)
	bad = &recorder{panicOn: map[string]bool{"ns/i": true, "ns/b": true}}
	badReg = add(t, f.inf, bad)
	synctest.Wait()
	for _, n := range []string{"a", "b", "c"} {
		f.src.Create(Pod("ns", n, "x"))
	}
	synctest.Wait()
	s.assertOrdered(t, []string{"add ns/i 1 true", "add ns/a 2 false", "add ns/b 3 false", "add ns/c 4 false"}, good.Got(), "the other handler")
	assert.Len(t, storedKeys(f.inf), 4)
	return bad, badReg, f.inf
}

// panickingHandler: with utilruntime.ReallyCrash off, client-go's listener
// logs the panic, skips the event, and waits a second before the next;
// an initial add that panicked is never counted, so the registration
// never reports synced.
func (s informerSuite) panickingHandler(t *testing.T) {
	defer func(prev bool) { utilruntime.ReallyCrash = prev }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = false
	bad, reg, inf := s.panicking(t)
	assert.Empty(t, bad.Got(), "paused after the panic on the initial add")
	time.Sleep(time.Second)
	synctest.Wait()
	if s.order == guarantee.OrderFIFO { // otherwise ns/b may come first
		assert.Equal(t, []string{"add ns/a 2 false"}, bad.Got(), "paused after the panic on ns/b")
	}
	time.Sleep(time.Second)
	synctest.Wait()
	s.assertOrdered(t, []string{"add ns/a 2 false", "add ns/c 4 false"}, bad.Got(), "the panicking handler")
	assert.False(t, reg.HasSynced(), "its initial add never completed")
	assert.False(t, inf.IsStopped())
}

// panickingHandlerRecovered: an informer that recovers handler panics
// skips only the events the handler panicked on, with no pause, even while
// utilruntime.ReallyCrash is on, and counts a skipped initial add.
func (s informerSuite) panickingHandlerRecovered(t *testing.T) {
	defer func(prev bool) { utilruntime.ReallyCrash = prev }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = true
	bad, reg, inf := s.panicking(t)
	s.assertOrdered(t, []string{"add ns/a 2 false", "add ns/c 4 false"}, bad.Got(), "the panicking handler, at once")
	assert.True(t, reg.HasSynced(), "the skipped initial add counts")
	assert.False(t, inf.IsStopped())
}

func (s informerSuite) failingTransform(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"))
	require.NoError(t, f.inf.SetTransform(func(obj any) (any, error) {
		if p, ok := obj.(*corev1.Pod); ok && p.Name == "bad" {
			return nil, errors.New("informertest: cannot transform bad")
		}
		return obj, nil
	}))
	r := &recorder{}
	add(t, f.inf, r)
	f.run(t)
	f.src.Create(Pod("ns", "bad", "x"))
	f.src.Create(Pod("ns", "good", "x"))
	time.Sleep(errorPause)
	synctest.Wait()
	assert.Equal(t, []string{"add ns/a 1 true", "add ns/good 3 false"}, r.Got(), "the object that fails is reported and skipped")
	assert.Equal(t, []string{"ns/a", "ns/good"}, storedKeys(f.inf))
	assert.False(t, f.inf.IsStopped())
}

func (s informerSuite) noMetadata(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"))
	r := &recorder{}
	add(t, f.inf, r)
	f.run(t)
	f.src.Send(watch.Added, &metav1.Status{Message: "no object metadata"})
	f.src.Create(Pod("ns", "b", "x"))
	time.Sleep(errorPause)
	synctest.Wait()
	assert.Equal(t, []string{"add ns/a 1 true", "add ns/b 3 false"}, r.Got())
	assert.False(t, f.inf.IsStopped())
}

func (s informerSuite) settingsFreeze(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{})
	noop := func(obj any) (any, error) { return obj, nil }
	require.NoError(t, f.inf.SetTransform(noop))
	require.NoError(t, f.inf.SetWatchErrorHandler(func(*cache.Reflector, error) {}))
	f.run(t)
	// client-go's messages, word for word: callers match them.
	const started = "informer has already started"
	assert.EqualError(t, f.inf.SetTransform(noop), started)
	assert.EqualError(t, f.inf.SetWatchErrorHandler(func(*cache.Reflector, error) {}), started)
	assert.EqualError(t, f.inf.SetWatchErrorHandlerWithContext(func(context.Context, *cache.Reflector, error) {}), started)
	f.inf.Run(make(chan struct{})) // a second Run returns at once
}

func (s informerSuite) stop(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"))
	gate := make(chan struct{})
	r := &recorder{gate: gate}
	add(t, f.inf, r)
	stop := f.start()
	synctest.Wait()
	assert.False(t, f.inf.IsStopped())
	time.AfterFunc(time.Second, func() { close(gate) })
	stop() // returns only once the handler, busy at the stop, has returned
	assert.True(t, f.inf.IsStopped())
	// client-go's messages, word for word: callers match them.
	late := &recorder{}
	_, err := f.inf.AddEventHandler(late)
	assert.EqualError(t, err, fmt.Sprintf("handler %v was not added to shared informer because it has stopped already", late),
		"AddEventHandler on a stopped informer")
	assert.EqualError(t, f.inf.AddIndexers(cache.Indexers{"x": cache.MetaNamespaceIndexFunc}),
		"indexer was not added because it has stopped already", "AddIndexers on a stopped informer")
	// Returning from the bubble fails the test if a goroutine is left.
}

func (s informerSuite) lastSyncRV(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"))
	assert.Empty(t, f.inf.LastSyncResourceVersion(), "before Run")
	f.run(t)
	assert.Equal(t, f.src.ResourceVersion(), f.inf.LastSyncResourceVersion())
	f.src.Create(Pod("ns", "b", "x"))
	synctest.Wait()
	assert.Equal(t, f.src.ResourceVersion(), f.inf.LastSyncResourceVersion())
}

func appIndex(obj any) ([]string, error) {
	return []string{obj.(*corev1.Pod).Labels["app"]}, nil
}

func (s informerSuite) indexers(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{Indexers: cache.Indexers{"app": appIndex}},
		Pod("ns", "a", "x"), Pod("ns", "b", "y"), Pod("other", "c", "x"))
	f.run(t)
	keys, err := f.inf.GetIndexer().IndexKeys("app", "x")
	require.NoError(t, err)
	slices.Sort(keys)
	assert.Equal(t, []string{"ns/a", "other/c"}, keys)

	require.NoError(t, f.inf.AddIndexers(cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}))
	keys, err = f.inf.GetIndexer().IndexKeys(cache.NamespaceIndex, "ns")
	require.NoError(t, err)
	slices.Sort(keys)
	assert.Equal(t, []string{"ns/a", "ns/b"}, keys, "a new index covers what is stored")
	assert.Error(t, f.inf.AddIndexers(cache.Indexers{"app": appIndex}), "an index name in use")

	f.src.Create(Pod("ns", "d", "x"))
	synctest.Wait()
	keys, err = f.inf.GetIndexer().IndexKeys("app", "x")
	require.NoError(t, err)
	assert.Len(t, keys, 3)
}

func (s informerSuite) getController(t *testing.T) {
	f := s.fixture(t, cache.SharedIndexInformerOptions{}, Pod("ns", "a", "x"))
	c := f.inf.GetController()
	assert.False(t, c.HasSynced())
	f.run(t)
	assert.True(t, c.HasSynced())
	assert.Equal(t, f.inf.LastSyncResourceVersion(), c.LastSyncResourceVersion())
	select {
	case <-f.inf.HasSyncedChecker().Done():
	default:
		t.Error("HasSyncedChecker not done though synced")
	}
}

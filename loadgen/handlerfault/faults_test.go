package handlerfault

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
)

// injector is a run's books over a small stream, with two panics and two
// blocks drawn and a stream that never ends (work is outstanding).
func injector(t *testing.T) (*Injector, *gen.Objects, context.CancelFunc) {
	cfg := gen.Defaults()
	cfg.Objects, cfg.Namespaces, cfg.Labels, cfg.Events = 200, 4, 10, 1000
	s, err := gen.Generate(cfg)
	require.NoError(t, err)
	objs := gen.NewObjects(s)
	led := account.New(s.Universe())
	key := func(obj any) (int, uint64, bool) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return 0, 0, false
		}
		k, kok := gen.KeyIndex(p.Name)
		rv, _ := gen.RV(p)
		return k, rv, kok && k < led.Keys()
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := New(ctx, Faults{Panics: 2, Blocks: 2, Block: time.Millisecond}, Books{Stream: s, Ledger: led, Key: key})
	f.grace = 20 * time.Millisecond
	f.EndsWith(make(chan struct{}))
	led.Emit(0, 1, false, 0)
	return f, objs, cancel
}

// TestBlockedHandlerThatHoldsUpTheOthersIsFlagged is the isolation check
// against an informer that serializes its handlers: the enqueuer gets
// nothing while the blocker sleeps, work is outstanding, the key is
// flagged; one notification of the enqueuer meanwhile clears it.
func TestBlockedHandlerThatHoldsUpTheOthersIsFlagged(t *testing.T) {
	f, objs, cancel := injector(t)
	defer cancel()
	f.block(0)
	vs := f.b.Ledger.Verify(account.Expect{Name: objs.Key})
	require.Len(t, vs, 1)
	assert.Equal(t, account.Isolation, vs[0].Check)

	f, objs, cancel = injector(t)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.block(0)
	}()
	// The enqueuer keeps being notified while the blocker sleeps.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for blocked := true; blocked; {
		select {
		case <-done:
			blocked = false
		case <-tick.C:
			f.fast.Add(1)
		}
	}
	assert.Empty(t, f.b.Ledger.Verify(account.Expect{Name: objs.Key}))
}

// TestPanickingEnqueuerIsForgivenOnlyItsState: the notification a panic
// skips covers the key only if it carried the newest state.
func TestPanickingEnqueuerIsForgivenOnlyItsState(t *testing.T) {
	f, objs, cancel := injector(t)
	defer cancel()
	var rv uint64
	for r := range f.panicAt {
		rv = r
		break
	}
	k := -1
	for _, ev := range f.b.Stream.Events {
		if ev.RV == rv {
			k = int(ev.Key)
		}
	}
	require.GreaterOrEqual(t, k, 0)
	led := f.b.Ledger
	led.Emit(k, rv, false, 0)
	led.Emit(k, rv+1_000_000, false, 0) // a newer change follows
	obj := objs.Build(k, rv)
	assert.PanicsWithValue(t, "queuelab: injected handler panic", func() { f.Enqueuing(obj, false) })
	assert.NotPanics(t, func() { f.Enqueuing(obj, false) }, "each chosen version panics once")
	assert.EqualValues(t, 1, led.Skipped())
	vs := led.Verify(account.Expect{Name: objs.Key, Reconciled: true})
	require.Len(t, vs, 1, "the newer change is still owed")
	assert.Contains(t, vs[0].Keys, objs.Key(k))
}

// TestBlockerMustSeeFinalStates: CheckFinal flags a key whose last
// notification to the blocking handler was not its final state.
func TestBlockerMustSeeFinalStates(t *testing.T) {
	f, objs, cancel := injector(t)
	defer cancel()
	f.blockAt = nil // the book-keeping alone
	b := f.Blocker()
	for k := range f.b.Stream.Universe() {
		rv, exists := f.b.Stream.Final(k)
		switch {
		case k == 3:
			b.OnUpdate(nil, objs.Build(k, 1)) // an older state, last
		case exists:
			b.OnUpdate(nil, objs.Build(k, rv))
		default:
			b.OnDelete(objs.Build(k, rv))
		}
	}
	f.CheckFinal()
	vs := f.b.Ledger.Verify(account.Expect{Name: objs.Key})
	require.Len(t, vs, 1)
	assert.Equal(t, account.HandlerLost, vs[0].Check)
	assert.Equal(t, []string{objs.Key(3)}, vs[0].Keys)
}

package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/queuelab/queuelab/loadgen/account"
)

// faultEnv is a run's shared state over the small stream, for the
// handler faults' own checks.
func faultEnv(t *testing.T) (*env, *handlerFaults, context.CancelFunc) {
	s, objs := smallStream(t)
	e := &env{stream: s, objs: objs, led: account.New(s.Universe()), o: testOptions(), base: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	hf := newHandlerFaults(e, HandlerFaults{Panics: 2, Blocks: 2, Block: time.Millisecond}, ctx)
	hf.grace = 20 * time.Millisecond
	hf.ended = make(chan struct{}) // the stream never ends: work is outstanding
	e.led.Emit(0, 1, false, 0)
	return e, hf, cancel
}

// TestBlockedHandlerThatHoldsUpTheOthersIsFlagged is the isolation check
// against an informer that serializes its handlers: the enqueuer gets
// nothing while the blocker sleeps, work is outstanding, the key is
// flagged; one notification of the enqueuer meanwhile clears it.
func TestBlockedHandlerThatHoldsUpTheOthersIsFlagged(t *testing.T) {
	e, hf, cancel := faultEnv(t)
	defer cancel()
	hf.block(0)
	vs := e.led.Verify(account.Expect{Name: e.objs.Key})
	require.Len(t, vs, 1)
	assert.Equal(t, account.Isolation, vs[0].Check)

	e, hf, cancel = faultEnv(t)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		hf.block(0)
	}()
	// The enqueuer keeps being notified while the blocker sleeps.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for blocked := true; blocked; {
		select {
		case <-done:
			blocked = false
		case <-tick.C:
			hf.fast.Add(1)
		}
	}
	assert.Empty(t, e.led.Verify(account.Expect{Name: e.objs.Key}))
}

// TestPanickingEnqueuerIsForgivenOnlyItsState: the notification a panic
// skips covers the key only if it carried the newest state.
func TestPanickingEnqueuerIsForgivenOnlyItsState(t *testing.T) {
	e, hf, cancel := faultEnv(t)
	defer cancel()
	var rv uint64
	for r := range hf.panicAt {
		rv = r
		break
	}
	k := -1
	for _, ev := range e.stream.Events {
		if ev.RV == rv {
			k = int(ev.Key)
		}
	}
	require.GreaterOrEqual(t, k, 0)
	e.led.Emit(k, rv, false, 0)
	e.led.Emit(k, rv+1_000_000, false, 0) // a newer change follows
	obj := e.objs.Build(k, rv)
	assert.PanicsWithValue(t, "queuelab: injected handler panic", func() { hf.enqueuing(obj, false) })
	assert.NotPanics(t, func() { hf.enqueuing(obj, false) }, "each chosen version panics once")
	assert.EqualValues(t, 1, e.led.Skipped())
	vs := e.led.Verify(account.Expect{Name: e.objs.Key, Reconciled: true})
	require.Len(t, vs, 1, "the newer change is still owed")
	assert.Contains(t, vs[0].Keys, e.objs.Key(k))
}

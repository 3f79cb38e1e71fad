package account

import (
	"context"
	"time"
)

// DrainOptions says what besides the ledger a Drain waits on and how it
// tells a stalled run from a slow one.
type DrainOptions struct {
	// Exhausted is closed once the stream has emitted everything (nil:
	// nothing to wait for).
	Exhausted <-chan struct{}
	// Ready is an extra condition to wait for (nil: none), such as an
	// informer having synced.
	Ready func() bool
	// Progress counts units of work (reconciles, notifications) beyond the
	// ledger's emissions; any change of it is progress.
	Progress func() int64
	// Stall is how long no progress ends the wait; Longer, if set, may
	// raise it while it returns a larger value (a Reflector waiting out its
	// relist backoff is not stalled).
	Stall  time.Duration
	Longer func() time.Duration
	// Collapsed, if set, reports that a relist may have merged deletions
	// away (Expect.Collapsed): while it holds, deletions still owed do
	// not hold the drain.
	Collapsed func() bool
}

// Drain waits until o.Exhausted is closed, o.Ready holds, every emitted
// change was covered and the handler has seen every deletion
// (OwedDeletes: a reconcile may observe a deletion in the store before the
// informer notifies the handler, and stopping the informer then would drop
// that notification). It reports a stall — no progress for o.Stall, or ctx
// done — instead of waiting forever on a pipeline or controller that lost
// something. The load pipelines and the whole-controller runs share it so
// that both judge a stall by the same rule.
func (l *Ledger) Drain(ctx context.Context, o DrainOptions) (stalled bool) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	last, lastAt := int64(-1), time.Now()
	for {
		owed := l.OwedDeletes() > 0 && (o.Collapsed == nil || !o.Collapsed())
		done := l.Uncovered() == 0 && !owed && (o.Ready == nil || o.Ready())
		if done && o.Exhausted != nil {
			select {
			case <-o.Exhausted:
			default:
				done = false
			}
		}
		if done {
			return false
		}
		stall := o.Stall
		if o.Longer != nil {
			stall = max(stall, o.Longer())
		}
		if p := o.Progress() + l.Emitted(); p != last {
			last, lastAt = p, time.Now()
		} else if time.Since(lastAt) > stall {
			return true
		}
		select {
		case <-ctx.Done():
			return true
		case <-tick.C:
		}
	}
}

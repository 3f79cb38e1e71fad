package pipeline

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/handlerfault"
)

// HandlerFaults make the informer pipeline's handlers panic and block at
// seeded notifications: the same faults, with the same books, as a
// whole-controller run's (see package handlerfault).
type HandlerFaults = handlerfault.Faults

// newHandlerFaults draws o's notifications from the run's stream, booked
// in its ledger; blocks end early once ctx is done.
func newHandlerFaults(e *env, o HandlerFaults, ctx context.Context) *handlerfault.Injector {
	return handlerfault.New(ctx, o, handlerfault.Books{Stream: e.stream, Ledger: e.led, Key: e.faultKey})
}

// faultKey is a notified object's ledger key and resourceVersion, a
// tombstone's last state included.
func (e *env) faultKey(obj any) (int, uint64, bool) {
	k, ok := keyOf(obj)
	return k, lastRV(obj), ok && k < e.led.Keys()
}

// lastRV is the resourceVersion of a notified object, or of a tombstone's
// last known state; 0 when it has none.
func lastRV(obj any) uint64 {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	var rv uint64
	if p, ok := obj.(*corev1.Pod); ok {
		rv, _ = gen.RV(p)
	}
	return rv
}

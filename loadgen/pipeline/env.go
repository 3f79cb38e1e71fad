package pipeline

import (
	"math/rand/v2"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/metrics"
)

// env is what every stage of a run shares: the stream, the books, the
// options and the run's clock.
type env struct {
	stream *gen.Stream
	objs   *gen.Objects
	led    *account.Ledger
	o      Options
	base   time.Time
	// measuring is set for the measured phase: samples taken during the
	// initial sync are not recorded.
	measuring atomic.Bool
	// progress counts units of work (reconciles, notifications) so a
	// stalled run can be told from a slow one.
	progress atomic.Int64
	// procErrs counts errors the pipeline swallowed (process functions,
	// unparseable keys, Resync): client-go's controller drops them too, but a
	// report must show them.
	procErrs atomic.Int64
	// reconciles counts reconciles in the measured phase; each worker adds
	// its own count once, when it exits.
	reconciles atomic.Int64
	// relisting, if set, reports a Reflector waiting out its relist
	// backoff, which drain does not take for a stall.
	relisting func() bool
	// caughtUp, if set, must hold too before the measured phase is
	// drained: a blocked handler has seen every notification.
	caughtUp func() bool
	// fp follows lists and notifications for Options.Footprint (nil:
	// off).
	fp *relists
}

// now is the run's clock in ns; emissions and covers use the same one.
func (e *env) now() int64 { return int64(time.Since(e.base)) }

// reconciler is what a worker's reconcile observes and how observing it
// covers pending changes.
type reconciler interface {
	// observe reads what the reconcile acts on; token and exists are handed
	// back to cover.
	observe(key string, k int) (token uint64, exists bool)
	cover(k int, token uint64, exists bool, now int64) (latency int64, ok bool)
}

// work is one worker: Get, reconcile, then Forget or AddRateLimited, Done.
// It leaves the ledger's per-key exclusivity before Done, since Done is
// what lets another worker have the key.
func (e *env) work(q workqueue.TypedRateLimitingInterface[string], r reconciler, lat *metrics.Latency, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x51ab))
	var measured int64
	defer func() { e.reconciles.Add(measured) }()
	for {
		key, shutdown := q.Get()
		if shutdown {
			return
		}
		k, ok := gen.KeyIndex(key)
		if !ok || k >= e.led.Keys() {
			e.procErrs.Add(1)
			q.Forget(key)
			q.Done(key)
			continue
		}
		entered := e.led.Enter(k)
		token, exists := r.observe(key, k)
		spin(e.o.ReconcileCost)
		failed := e.o.ErrorRate > 0 && rng.Float64() < e.o.ErrorRate
		var (
			latency int64
			covered bool
		)
		if !failed {
			latency, covered = r.cover(k, token, exists, e.now())
		}
		if entered {
			e.led.Exit(k)
		}
		e.progress.Add(1)
		if e.measuring.Load() {
			measured++
			if covered {
				lat.Record(latency)
			}
		}
		if failed {
			q.AddRateLimited(key)
		} else {
			q.Forget(key)
		}
		q.Done(key)
	}
}

// spin burns d of CPU, standing in for a reconcile's own work.
func spin(d time.Duration) {
	if d <= 0 {
		return
	}
	for t := time.Now(); time.Since(t) < d; {
	}
}

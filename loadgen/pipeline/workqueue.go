package pipeline

import (
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/metrics"
	"github.com/queuelab/queuelab/loadgen/watchsrc"
)

// workqueueRun is producers Adding the stream's keys to a rate-limited
// workqueue and workers reconciling them.
type workqueueRun struct {
	e       *env
	q       workqueue.TypedRateLimitingInterface[string]
	lats    []*metrics.Latency
	stopped chan struct{}
	done    chan struct{}
	wg      sync.WaitGroup // workers
	prod    sync.WaitGroup // producers
}

// source is nil: producers add keys, nothing lists or watches.
func (r *workqueueRun) source() *watchsrc.Source { return nil }

func newWorkqueueRun(e *env, st Stack, layer Layer) *workqueueRun {
	return &workqueueRun{
		e:       e,
		q:       layer(st.WorkQ.New(), newLimiter()),
		stopped: make(chan struct{}),
		done:    make(chan struct{}),
	}
}

func (r *workqueueRun) start() {
	for i := range r.e.o.Workers {
		lat := metrics.NewLatency()
		r.lats = append(r.lats, lat)
		r.wg.Go(func() { r.e.work(r.q, seqReader{r.e.led}, lat, r.e.stream.Config.Seed+uint64(i)) })
	}
}

// release starts the producers: producer p adds the keys of the stream's
// object events whose ordinal is p modulo Producers, each when due.
func (r *workqueueRun) release() {
	start := time.Now()
	pacer := gen.NewPacer(r.e.o.Schedule, start)
	startAt := int64(start.Sub(r.e.base))
	n := r.e.o.Producers
	for p := range n {
		r.prod.Go(func() {
			j := 0
			for _, ev := range r.e.stream.Events {
				if !ev.Kind.IsObject() {
					continue
				}
				if j%n == p {
					at, ok := pacer.Wait(j, r.stopped)
					if !ok {
						return
					}
					k := int(ev.Key)
					r.e.led.Emit(k, uint64(j+1), false, startAt+at)
					r.q.Add(r.e.objs.Key(k))
				}
				j++
			}
		})
	}
	go func() {
		r.prod.Wait()
		close(r.done)
	}()
}

func (r *workqueueRun) listed() bool                  { return true }
func (r *workqueueRun) exhausted() <-chan struct{}    { return r.done }
func (r *workqueueRun) depth() int64                  { return int64(r.q.Len()) }
func (r *workqueueRun) latencies() []*metrics.Latency { return r.lats }
func (r *workqueueRun) stored() int                   { return 0 }
func (r *workqueueRun) finish(*Result)                {}

func (r *workqueueRun) stop() {
	close(r.stopped)
	r.prod.Wait()
	r.q.ShutDown()
	r.wg.Wait()
}

func (r *workqueueRun) expect() account.Expect {
	return account.Expect{Name: r.e.objs.Key, Reconciled: true}
}

// seqReader is the workqueue pipeline's reconcile: it observes the changes
// emitted for the key so far.
type seqReader struct{ led *account.Ledger }

func (s seqReader) observe(_ string, k int) (uint64, bool) { return uint64(s.led.Seq(k)), true }

func (s seqReader) cover(k int, seq uint64, _ bool, now int64) (int64, bool) {
	return s.led.CoverSeq(k, uint32(seq), now)
}

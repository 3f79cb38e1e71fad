package linearize_test

import (
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/internal/lab/linearize"
)

// brokenDeltaFIFOs and brokenRateLimiting are the DeltaFIFO's and the
// rate-limiting layer's broken variants, each built on client-go's own.
func brokenDeltaFIFOs() []broken {
	df := func(name string, newQ func(cache.DeltaFIFOOptions) linearize.DeltaFIFO) broken {
		return broken{"deltafifo", name, func(c linearize.Config) linearize.Result {
			return linearize.CheckDeltaFIFO(c, name, false, true, newQ)
		}}
	}
	return []broken{
		df("drops-delta", func(o cache.DeltaFIFOOptions) linearize.DeltaFIFO {
			q := cache.NewDeltaFIFOWithOptions(o)
			return &dropsDelta{DeltaFIFO: q, update: dropsWrite(q.Update)}
		}),
		df("non-atomic-replace", func(o cache.DeltaFIFOOptions) linearize.DeltaFIFO {
			known := &staleKnown{KeyListerGetter: o.KnownObjects}
			o.KnownObjects = known
			return &staleReplace{DeltaFIFO: cache.NewDeltaFIFOWithOptions(o), known: known}
		}),
	}
}

func brokenRateLimiting() []broken {
	rl := func(name string, wrap func(q workqueue.TypedRateLimitingInterface[int], l workqueue.TypedRateLimiter[int]) linearize.RateLimitingQueue) broken {
		return broken{"ratelimit", name, func(c linearize.Config) linearize.Result {
			return linearize.CheckRateLimiting(c, name, func(clk clock.WithTicker, l workqueue.TypedRateLimiter[int]) linearize.RateLimitingQueue {
				return wrap(workqueue.NewTypedRateLimitingQueueWithConfig(l, workqueue.TypedRateLimitingQueueConfig[int]{Clock: clk}), l)
			})
		}}
	}
	return []broken{
		rl("releases-early", func(q workqueue.TypedRateLimitingInterface[int], l workqueue.TypedRateLimiter[int]) linearize.RateLimitingQueue {
			return &releasesEarly{TypedRateLimitingInterface: q, limiter: l}
		}),
		rl("ignores-forget", func(q workqueue.TypedRateLimitingInterface[int], _ workqueue.TypedRateLimiter[int]) linearize.RateLimitingQueue {
			return ignoresForget{q}
		}),
	}
}

// dropsDelta loses every seventh Update.
type dropsDelta struct {
	*cache.DeltaFIFO
	update func(obj any) error // dropsWrite of the DeltaFIFO's Update
}

func (q *dropsDelta) Update(obj any) error { return q.update(obj) }

// staleReplace reads KnownObjects before it takes the queue's lock, the
// way a Replace computing its tombstones outside its critical section
// would: a Pop that lands in between updates KnownObjects, and the
// tombstones follow the store as it was.
type staleReplace struct {
	*cache.DeltaFIFO
	known *staleKnown
	mu    sync.Mutex // one Replace at a time, each with its snapshot
}

func (q *staleReplace) Replace(list []any, rv string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.known.freeze()
	defer q.known.thaw()
	time.Sleep(20 * time.Microsecond)
	return q.DeltaFIFO.Replace(list, rv)
}

// staleKnown is KnownObjects as a snapshot while frozen.
type staleKnown struct {
	cache.KeyListerGetter
	mu   sync.Mutex
	snap map[string]any // nil: not frozen
}

func (k *staleKnown) freeze() {
	snap := map[string]any{}
	for _, key := range k.KeyListerGetter.ListKeys() {
		if obj, ok, _ := k.KeyListerGetter.GetByKey(key); ok {
			snap[key] = obj
		}
	}
	k.mu.Lock()
	k.snap = snap
	k.mu.Unlock()
}

func (k *staleKnown) thaw() {
	k.mu.Lock()
	k.snap = nil
	k.mu.Unlock()
}

func (k *staleKnown) ListKeys() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.snap == nil {
		return k.KeyListerGetter.ListKeys()
	}
	keys := make([]string, 0, len(k.snap))
	for key := range k.snap {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

func (k *staleKnown) GetByKey(key string) (any, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.snap == nil {
		return k.KeyListerGetter.GetByKey(key)
	}
	obj, ok := k.snap[key]
	return obj, ok, nil
}

// releasesEarly hands every delayed item to the queue one tick before it
// is due.
type releasesEarly struct {
	workqueue.TypedRateLimitingInterface[int]
	limiter workqueue.TypedRateLimiter[int]
}

func (q *releasesEarly) AddAfter(it int, d time.Duration) {
	q.TypedRateLimitingInterface.AddAfter(it, d-time.Millisecond)
}

func (q *releasesEarly) AddRateLimited(it int) { q.AddAfter(it, q.limiter.When(it)) }

// ignoresForget keeps counting an item's failures after Forget.
type ignoresForget struct {
	workqueue.TypedRateLimitingInterface[int]
}

func (ignoresForget) Forget(int) {}

package priorityqtest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/priorityq"
)

// diffKeys is how many distinct items the differential check uses: few, so
// that dedup, raises and re-adds while processing happen often.
const diffKeys = 6

var (
	diffPriorities = []int{-100, 0, 0, 5, 100}
	diffDelays     = []time.Duration{0, 0, 0, 0, time.Second, 3 * time.Second}
)

// DiffPriorityQueue applies a random sequence of steps operations, generated
// from seed, to a queue made by newQueue and to controller-runtime's queue,
// in one synctest bubble so that delays are exact, and fails at the first
// observable difference with the seed and the operation trace. Operations:
// AddWithOpts (priority, delay, rate limit; one or several items), Get (at
// most one outstanding per queue: a Get that blocks stays pending and must
// return the same item as the reference's when it does), Done of a held
// item, Forget, time passing, and a final ShutDown, after which both must
// report shutdown at once. Len is compared after every step. The candidate
// must keep controller-runtime's order exactly.
func DiffPriorityQueue(t *testing.T, newQueue NewQueue, seed uint64, steps int) {
	t.Helper()
	if err := diff(t, newQueue, seed, steps); err != nil {
		t.Fatal(err)
	}
}

// limiter is the rate limiter each queue of the differential check gets
// its own instance of, so both see the same delays.
func limiter() workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[string](500*time.Millisecond, 4*time.Second)
}

func diff(t *testing.T, newQueue NewQueue, seed uint64, steps int) (err error) {
	synctest.Test(t, func(t *testing.T) {
		want := priorityq.Impls[string]()[0] // controller-runtime's
		ref, rerr := want.New(priorityq.Options[string]{RateLimiter: limiter()})
		if rerr != nil {
			err = rerr
			return
		}
		got := newQueue(t, priorityq.Options[string]{RateLimiter: limiter()})
		rng := rand.New(rand.NewPCG(seed, 0xd1ff))
		var trace []string
		var held []string          // handed out by both, not yet Done
		var refGet, gotGet pending // outstanding Gets
		fail := func(format string, args ...any) {
			err = fmt.Errorf("differential check against controller-runtime failed (seed %d, step %d): %s\ntrace:\n  %s",
				seed, len(trace), fmt.Sprintf(format, args...), strings.Join(trace, "\n  "))
		}
		// settle compares the outstanding Gets and Len once both queues are quiet.
		settle := func() bool {
			synctest.Wait()
			if refGet != nil {
				r, rok := refGet.poll()
				g, gok := gotGet.poll()
				switch {
				case rok != gok:
					fail("pending Get: controller-runtime returned=%v (%v), candidate returned=%v (%v)", rok, r, gok, g)
					return false
				case rok && r != g:
					fail("pending Get returned %v, controller-runtime %v", g, r)
					return false
				case rok:
					trace = append(trace, "  -> pending Get returned "+r.String())
					held = append(held, r.item)
					refGet, gotGet = nil, nil
				}
			}
			if r, g := ref.Len(), got.Len(); r != g {
				fail("Len = %d, controller-runtime %d", g, r)
				return false
			}
			return true
		}
		key := func() string { return fmt.Sprint("k", rng.IntN(diffKeys)) }
		for range steps {
			switch r := rng.IntN(100); {
			case r < 45:
				o := priorityq.AddOpts{After: diffDelays[rng.IntN(len(diffDelays))], RateLimited: rng.IntN(8) == 0}
				if p := diffPriorities[rng.IntN(len(diffPriorities))]; p != 0 || rng.IntN(2) == 0 {
					o.Priority = ptr.To(p)
				}
				items := []string{key()}
				if rng.IntN(5) == 0 {
					items = append(items, key())
				}
				trace = append(trace, fmt.Sprintf("AddWithOpts(priority=%v after=%v ratelimited=%v) %v", ptr.Deref(o.Priority, 0), o.After, o.RateLimited, items))
				ref.AddWithOpts(o, items...)
				got.AddWithOpts(o, items...)
			case r < 70:
				if refGet != nil {
					continue
				}
				trace = append(trace, "Get")
				refGet, gotGet = startGet(ref), startGet(got)
			case r < 85:
				if item, ok := suite.DoneAny(rng, &held, ref, got); ok {
					trace = append(trace, "Done "+item)
				}
			case r < 88:
				k := key()
				trace = append(trace, "Forget "+k)
				ref.Forget(k)
				got.Forget(k)
			default:
				d := time.Duration(rng.IntN(2000)) * time.Millisecond
				trace = append(trace, fmt.Sprint("Sleep ", d))
				time.Sleep(d)
			}
			if !settle() {
				break
			}
		}
		ref.ShutDown()
		got.ShutDown()
		trace = append(trace, "ShutDown")
		// Both report shutdown at once: a pending Get, and a fresh one.
		if err == nil && refGet == nil {
			refGet, gotGet = startGet(ref), startGet(got)
		}
		synctest.Wait()
		if err == nil {
			r, rok := refGet.poll()
			g, gok := gotGet.poll()
			if !gok || g != r || !r.shutdown {
				fail("Get after ShutDown: candidate %v (returned %v), controller-runtime %v (returned %v)", g, gok, r, rok)
			} else if r, g := mustGet(t, ref), mustGet(t, got); !g.shutdown || g != r {
				fail("fresh Get after ShutDown = %v, controller-runtime %v", g, r)
			}
		}
		for _, item := range held {
			got.Done(item)
		}
		synctest.Wait()
	})
	return err
}

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
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/queuelab/queuelab/guarantee"
	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/priorityq"
)

// diffKeys is how many distinct items the differential check uses: few, so
// that dedup, raises and re-adds while processing happen often.
const diffKeys = 6

// diffOpsLen is the length of SeedOps' sequences: about 300 operations.
const diffOpsLen = 1200

var (
	diffPriorities = []int{-100, 0, 0, 5, 100}
	diffDelays     = []time.Duration{0, 0, 0, 0, time.Second, 3 * time.Second}
)

// Diff applies the operations decoded from ops (any byte string is a valid
// sequence; see SeedOps) to a queue made by newQueue and to
// controller-runtime's queue, in one synctest bubble so that delays are
// exact, and fails at the first observable difference with the operation
// trace; suite.KeepFailingOps keeps the failing ops for replay.
// Operations: AddWithOpts (priority, delay, rate limit; one or several
// items), Get (at most one outstanding per queue: a Get that blocks stays
// pending and must return the same item as the reference's when it does),
// Done of a held item, Forget, time passing, and a final ShutDown, after
// which both must report shutdown at once. Len is compared after every
// operation. The candidate must keep controller-runtime's order exactly, so
// Diff is skipped unless g declares FIFO order and KeepsPosition.
func Diff(t *testing.T, newQueue NewQueue, g Guarantees, ops []byte) {
	t.Helper()
	suite.KeepFailingOps(t, ops)
	if g.Order != guarantee.OrderFIFO || !g.KeepsPosition {
		t.Skip("[relaxed] order differs from controller-runtime's (Diff an exact configuration, such as one shard)")
	}
	if err := diff(t, newQueue, ops); err != nil {
		t.Fatal(err)
	}
}

// SeedOps returns the operation bytes a seed stands for: about 300
// operations, what the seeded differential runs replay.
func SeedOps(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0xd1ff))
	b := make([]byte, diffOpsLen)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// limiter is the rate limiter each queue of the differential check gets
// its own instance of, so both see the same delays.
func limiter() workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[string](500*time.Millisecond, 4*time.Second)
}

func diff(t *testing.T, newQueue NewQueue, ops []byte) (err error) {
	synctest.Test(t, func(t *testing.T) {
		// controller-runtime's own queue is the reference, built as its
		// controllers build it, with no metrics name.
		ref := priorityqueue.New[string]("", func(o *priorityqueue.Opts[string]) { o.RateLimiter = limiter() })
		got := build(t, newQueue, priorityq.Options[string]{RateLimiter: limiter()})
		src := suite.NewOps(ops)
		var trace []string
		var held []string          // handed out by both, not yet Done
		var refGet, gotGet pending // outstanding Gets
		fail := func(format string, args ...any) {
			err = fmt.Errorf("differential check against controller-runtime failed (operation %d): %s\ntrace:\n  %s",
				len(trace), fmt.Sprintf(format, args...), strings.Join(trace, "\n  "))
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
		key := func() string { return fmt.Sprint("k", src.Intn(diffKeys)) }
		for !src.Done() {
			switch r := src.Intn(100); {
			case r < 45:
				o := priorityq.AddOpts{After: diffDelays[src.Intn(len(diffDelays))], RateLimited: src.Intn(8) == 0}
				if p := diffPriorities[src.Intn(len(diffPriorities))]; p != 0 || src.Intn(2) == 0 {
					o.Priority = ptr.To(p)
				}
				items := []string{key()}
				if src.Intn(5) == 0 {
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
				item, ok := suite.DoneAny(&src, &held, ref, got)
				if !ok {
					continue
				}
				trace = append(trace, "Done "+item)
			case r < 88:
				k := key()
				trace = append(trace, "Forget "+k)
				ref.Forget(k)
				got.Forget(k)
			default:
				d := time.Duration(src.Intn(250)) * 8 * time.Millisecond
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

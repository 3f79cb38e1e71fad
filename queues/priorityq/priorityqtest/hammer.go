package priorityqtest

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/queuelab/queuelab/queues/priorityq"
)

// Hammer runs producers goroutines adding keys items perProducer times in
// all (random priorities, some with a short delay) against workers
// goroutines taking and finishing them, then checks exactly, per key, that
// every add was followed by a hand-out (nothing lost: the last version
// added of each key was seen by a worker that got the key after it), that
// no two workers ever held one key at once, and that nothing was handed out
// that was never added. It shuts the queue down once every key is settled,
// and checks that the workers all stop.
func Hammer(t *testing.T, newQueue NewQueue, producers, workers, keys, perProducer int) {
	t.Helper()
	q := build(t, newQueue, priorityq.Options[string]{})
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprint("key-", i)
	}
	added := make([]atomic.Int64, keys) // versions added
	seen := make([]atomic.Int64, keys)  // highest version a worker saw after getting the key
	busy := make([]atomic.Bool, keys)
	var handouts atomic.Int64
	var bad atomic.Value // first error

	index := func(item string) int {
		var i int
		if _, err := fmt.Sscanf(item, "key-%d", &i); err != nil || i < 0 || i >= keys {
			bad.CompareAndSwap(nil, fmt.Sprintf("handed out %q, never added", item))
			return -1
		}
		return i
	}
	var working sync.WaitGroup
	for range workers {
		working.Go(func() {
			for {
				item, _, shutdown := q.GetWithPriority()
				if shutdown {
					return
				}
				handouts.Add(1)
				i := index(item)
				if i >= 0 {
					if !busy[i].CompareAndSwap(false, true) {
						bad.CompareAndSwap(nil, fmt.Sprintf("%s handed to two workers at once", item))
					}
					v := added[i].Load()
					for s := seen[i].Load(); s < v && !seen[i].CompareAndSwap(s, v); s = seen[i].Load() {
					}
					busy[i].Store(false)
				}
				q.Done(item)
			}
		})
	}
	var producing sync.WaitGroup
	for p := range producers {
		producing.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 7))
			for range perProducer {
				i := rng.IntN(keys)
				added[i].Add(1)
				o := priorityq.AddOpts{Priority: ptr.To(rng.IntN(5) - 2)}
				if rng.IntN(20) == 0 {
					o.After = time.Duration(rng.IntN(1000)) * time.Microsecond
				}
				q.AddWithOpts(o, names[i])
			}
		})
	}
	producing.Wait()
	// Wait until every key's last add has been seen, then stop.
	for settled := false; !settled; {
		settled = true
		for i := range keys {
			if seen[i].Load() < added[i].Load() {
				settled = false
				time.Sleep(time.Millisecond)
				break
			}
		}
	}
	q.ShutDown()
	working.Wait()
	if msg := bad.Load(); msg != nil {
		t.Fatal(msg)
	}
	total := int64(0)
	for i := range keys {
		total += added[i].Load()
	}
	if h := handouts.Load(); h > total {
		t.Fatalf("%d hand-outs for %d adds", h, total)
	}
}

package queuesuite

import (
	"strconv"
	"sync"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// fifoHammer: many producers, each owning its keys, write versions 1..n of
// every key (deleting each key once midway) while one consumer pops. Exact
// accounting: per key the popped versions strictly increase and the last
// one is n — the newest value always comes out, nothing is popped twice.
func fifoHammer(t *testing.T, q cache.Queue) {
	const producers, keysEach, versions = 8, 16, 40
	popped := make(map[string][]int)
	consumerDone := consume(q, func(item any) error {
		m := item.(interface {
			GetName() string
			GetResourceVersion() string
		})
		v, _ := strconv.Atoi(m.GetResourceVersion())
		popped[m.GetName()] = append(popped[m.GetName()], v)
		return nil
	})
	hammer(t, q, producers, keysEach, versions, versions/2, consumerDone)
	if len(popped) != producers*keysEach {
		t.Fatalf("popped %d distinct keys, want %d", len(popped), producers*keysEach)
	}
	for name, vs := range popped {
		for i := 1; i < len(vs); i++ {
			if vs[i] <= vs[i-1] {
				t.Fatalf("%s popped versions %v: not strictly increasing", name, vs)
			}
		}
		if last := vs[len(vs)-1]; last != versions {
			t.Fatalf("%s: last popped version %d, want %d", name, last, versions)
		}
	}
}

// hammerKey names key k of producer p.
func hammerKey(p, k int) string { return "p" + strconv.Itoa(p) + "-" + strconv.Itoa(k) }

// hammer runs producers goroutines, each writing versions 1..versions of
// its keysEach keys (Add first, Delete at version deleteAt, Update
// otherwise), then closes q and waits for the consumer to drain it.
func hammer(t *testing.T, q cache.Queue, producers, keysEach, versions, deleteAt int, consumerDone <-chan error) {
	t.Helper()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for v := 1; v <= versions; v++ {
				for k := range keysEach {
					o := obj(hammerKey(p, k), strconv.Itoa(v))
					var err error
					switch v {
					case 1:
						err = q.Add(o)
					case deleteAt:
						err = q.Delete(o)
					default:
						err = q.Update(o)
					}
					if err != nil {
						t.Errorf("producer %d: %v", p, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	q.Close()
	if err := <-consumerDone; err != nil {
		t.Fatalf("consumer: %v", err)
	}
}

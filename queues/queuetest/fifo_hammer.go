package queuetest

import (
	"errors"
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
	consumerDone := make(chan error)
	go func() {
		for {
			var item any
			_, err := q.Pop(func(it any, _ bool) error { item = it; return nil })
			if errors.Is(err, cache.ErrFIFOClosed) {
				consumerDone <- nil
				return
			}
			if err != nil {
				consumerDone <- err
				return
			}
			m := item.(interface {
				GetName() string
				GetResourceVersion() string
			})
			v, _ := strconv.Atoi(m.GetResourceVersion())
			popped[m.GetName()] = append(popped[m.GetName()], v)
		}
	}()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for v := 1; v <= versions; v++ {
				for k := range keysEach {
					o := obj("p"+strconv.Itoa(p)+"-"+strconv.Itoa(k), strconv.Itoa(v))
					var err error
					switch {
					case v == 1:
						err = q.Add(o)
					case v == versions/2:
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

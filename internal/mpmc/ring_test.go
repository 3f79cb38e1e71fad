package mpmc_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/internal/mpmc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFIFOFullEmpty(t *testing.T) {
	r := mpmc.New[int](3)
	require.Equal(t, 4, r.Cap())
	for lap := range 3 { // several laps exercise the sequence arithmetic
		for i := range 4 {
			require.True(t, r.TryPush(lap*10+i))
		}
		assert.False(t, r.TryPush(99), "full ring must refuse")
		assert.Equal(t, 4, r.Len())
		for i := range 4 {
			v, ok := r.TryPop()
			require.True(t, ok)
			assert.Equal(t, lap*10+i, v)
		}
		_, ok := r.TryPop()
		assert.False(t, ok, "empty ring must refuse")
		assert.Equal(t, 0, r.Len())
	}
}

// TestConcurrentExactlyOnce pushes distinct values from many producers while
// many consumers pop; every value must come out exactly once and each
// producer's values in the order it pushed them.
func TestConcurrentExactlyOnce(t *testing.T) {
	const producers, consumers, perProducer = 4, 4, 20_000
	r := mpmc.New[int](64) // small, so producers meet a full ring often

	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range perProducer {
				for !r.TryPush(p*perProducer + i) {
				}
			}
		})
	}
	got := make([][]int, consumers)
	var popped sync.WaitGroup
	var remaining = make(chan struct{}, producers*perProducer)
	for range producers * perProducer {
		remaining <- struct{}{}
	}
	for c := range consumers {
		popped.Go(func() {
			for {
				select {
				case <-remaining:
				default:
					return
				}
				for {
					if v, ok := r.TryPop(); ok {
						got[c] = append(got[c], v)
						break
					}
				}
			}
		})
	}
	wg.Wait()
	popped.Wait()

	requireExactlyOnceInOrder(t, got, producers, perProducer)
}

// requireExactlyOnceInOrder checks what consumers popped (got[c], in pop
// order) when producer p pushed p*perProducer … (p+1)*perProducer-1 in
// order: every value exactly once, each producer's in its order.
func requireExactlyOnceInOrder(t *testing.T, got [][]int, producers, perProducer int) {
	t.Helper()
	seen := make([]bool, producers*perProducer)
	for _, vals := range got {
		last := make([]int, producers)
		for i := range last {
			last[i] = -1
		}
		for _, v := range vals {
			require.False(t, seen[v], "value %d popped twice", v)
			seen[v] = true
			p := v / perProducer
			require.Greater(t, v, last[p], "producer %d's values out of order", p)
			last[p] = v
		}
	}
	for v, ok := range seen {
		require.True(t, ok, "value %d lost", v)
	}
}

func BenchmarkPushPop(b *testing.B) {
	r := mpmc.New[string](1024)
	b.ReportAllocs()
	for b.Loop() {
		r.TryPush("key")
		r.TryPop()
	}
}

package mpmc_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/queuelab/queuelab/internal/mpmc"
)

func TestNewQueueRejectsBadSegmentSize(t *testing.T) {
	_, err := mpmc.NewQueue[int](0)
	assert.EqualError(t, err, "mpmc: segment size must be in [1, 1099511627776], got 0")
	q, err := mpmc.NewQueue[int](5)
	require.NoError(t, err)
	assert.Equal(t, 8, q.SegmentSize())
}

// TestQueueFIFOAcrossSegments: a backlog many segments long comes out in
// order, interleaved pushes and pops included, and the queue keeps working
// once it is back to one segment.
func TestQueueFIFOAcrossSegments(t *testing.T) {
	q, err := mpmc.NewQueue[int](4)
	require.NoError(t, err)
	next, want := 0, 0
	pop := func() {
		v, ok := q.TryPop()
		require.True(t, ok, "value %d missing", want)
		require.Equal(t, want, v)
		want++
	}
	for round := range 40 {
		for range round % 13 {
			q.Push(next)
			next++
		}
		for range round % 7 {
			if want < next {
				pop()
			}
		}
	}
	for want < next {
		assert.False(t, q.Empty())
		pop()
	}
	_, ok := q.TryPop()
	assert.False(t, ok, "empty queue must refuse")
	assert.True(t, q.Empty())
	for i := range 3 { // one segment again, reused
		q.Push(i)
	}
	for i := range 3 {
		v, ok := q.TryPop()
		require.True(t, ok)
		assert.Equal(t, i, v)
	}
}

// TestQueueConcurrentExactlyOnce: producers push distinct values through a
// queue of tiny segments (so segments fill, close and link all the time)
// while consumers pop; every value comes out exactly once, each producer's
// in the order it pushed them.
func TestQueueConcurrentExactlyOnce(t *testing.T) {
	const producers, consumers, perProducer = 4, 4, 20_000
	q, err := mpmc.NewQueue[int](8)
	require.NoError(t, err)

	var pushing sync.WaitGroup
	for p := range producers {
		pushing.Go(func() {
			for i := range perProducer {
				q.Push(p*perProducer + i)
			}
		})
	}
	var left atomic.Int64
	left.Store(producers * perProducer)
	got := make([][]int, consumers)
	var popping sync.WaitGroup
	for c := range consumers {
		popping.Go(func() {
			for left.Load() > 0 {
				if v, ok := q.TryPop(); ok {
					got[c] = append(got[c], v)
					left.Add(-1)
				}
			}
		})
	}
	pushing.Wait()
	popping.Wait()
	assert.True(t, q.Empty())

	requireExactlyOnceInOrder(t, got, producers, perProducer)
}

// TestQueueEmptySeesCompletedPushes: a value pushed before Empty is called
// is seen, whichever segment it landed in.
func TestQueueEmptySeesCompletedPushes(t *testing.T) {
	q, err := mpmc.NewQueue[int](2)
	require.NoError(t, err)
	for i := range 5 {
		q.Push(i)
		assert.False(t, q.Empty())
	}
	for range 4 {
		_, ok := q.TryPop()
		require.True(t, ok)
		assert.False(t, q.Empty(), "one value left, in the last segment")
	}
	_, ok := q.TryPop()
	require.True(t, ok)
	assert.True(t, q.Empty())
}

func BenchmarkQueuePushPop(b *testing.B) {
	q, _ := mpmc.NewQueue[string](1024)
	b.ReportAllocs()
	for b.Loop() {
		q.Push("key")
		q.TryPop()
	}
}

// TestQueuePoppedAcrossSegments: Push returns positions counting the values
// pushed before, across segments, Popped turns true for a position exactly
// when TryPop has taken its value, and Len counts the values between.
func TestQueuePoppedAcrossSegments(t *testing.T) {
	q, err := mpmc.NewQueue[int](4)
	require.NoError(t, err)
	const n = 19 // five segments, the last one partly filled
	for i := range n {
		require.Equal(t, uint64(i), q.Push(i))
	}
	for i := range n {
		require.Equal(t, n-i, q.Len())
		for p := range n {
			require.Equal(t, p < i, q.Popped(uint64(p)), "position %d after %d pops", p, i)
		}
		v, ok := q.TryPop()
		require.True(t, ok)
		require.Equal(t, i, v)
	}
	require.True(t, q.Popped(n-1))
	require.False(t, q.Popped(n))
	require.Zero(t, q.Len())
	require.Equal(t, uint64(n), q.Push(n), "positions go on after the queue drained")
}

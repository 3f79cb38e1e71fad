package deque_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/internal/deque"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestMatchesSliceModel drives a Deque and a plain slice with the same random
// pushes and pops, across growth, wrap-around and shrinking.
func TestMatchesSliceModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var d deque.Deque[int]
	var model []int
	for i := range 200_000 {
		// Phases bias towards pushing then popping so the buffer grows to
		// thousands of slots and shrinks back.
		pushBias := 70
		if (i/20_000)%2 == 1 {
			pushBias = 30
		}
		if rng.IntN(100) < pushBias {
			d.PushBack(i)
			model = append(model, i)
		} else {
			v, ok := d.PopFront()
			if len(model) == 0 {
				require.False(t, ok)
				continue
			}
			require.True(t, ok)
			require.Equal(t, model[0], v)
			model = model[1:]
		}
		require.Equal(t, len(model), d.Len())
	}
	assert.Equal(t, model, slices.Collect(d.All))
}

func TestFrontAndReset(t *testing.T) {
	var d deque.Deque[string]
	_, ok := d.Front()
	assert.False(t, ok)
	d.PushBack("a")
	d.PushBack("b")
	v, ok := d.Front()
	assert.True(t, ok)
	assert.Equal(t, "a", v)
	d.Reset()
	assert.Equal(t, 0, d.Len())
	_, ok = d.PopFront()
	assert.False(t, ok)
	d.PushBack("c")
	v, _ = d.PopFront()
	assert.Equal(t, "c", v)
}

func TestAllStopsEarly(t *testing.T) {
	var d deque.Deque[int]
	for i := range 10 {
		d.PushBack(i)
	}
	var seen []int
	d.All(func(v int) bool { seen = append(seen, v); return v < 2 })
	assert.Equal(t, []int{0, 1, 2}, seen)
}

func BenchmarkPushPop(b *testing.B) {
	var d deque.Deque[string]
	b.ReportAllocs()
	for b.Loop() {
		d.PushBack("key")
		d.PopFront()
	}
}

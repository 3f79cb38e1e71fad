package fanout

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// gatedCounter counts its calls; each call then waits for gate, so the
// test decides when the handler drains.
type gatedCounter struct {
	mu   sync.Mutex
	n    int
	gate chan struct{}
}

func (h *gatedCounter) OnAdd(any, bool)   { h.note() }
func (h *gatedCounter) OnUpdate(_, _ any) { h.note() }
func (h *gatedCounter) OnDelete(any)      { h.note() }

// note counts before it waits, so once the test has opened the gate for
// the last call, every call has counted.
func (h *gatedCounter) note() {
	h.mu.Lock()
	h.n++
	h.mu.Unlock()
	<-h.gate
}

// TestPushDoesNotAllocatePerEvent: once a registration's buffers have grown
// to the backlog, handing it events and delivering them allocates nothing
// per event (client-go boxes every notification). The count is process-wide, so the runtime's
// occasional allocation when a goroutine parks or wakes shows up in it:
// the bound is one per push of 64 events, not zero.
func TestPushDoesNotAllocatePerEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on synchronisation")
	}
	f := New(clock.RealClock{}, Crash)
	h := &gatedCounter{gate: make(chan struct{})}
	_, err := f.Add(h, "counter", klog.Background(), 0, 0, nil)
	require.NoError(t, err)
	f.Start()
	defer f.Stop()
	events := make([]Event, 64)
	for i := range events {
		events[i] = Event{Kind: Update, Obj: i, Old: i}
	}
	const rounds = 30 // the backlog, 2*rounds pushes of 64, stays within keepEvents
	push := func() {
		for range rounds {
			f.Push(events)
		}
	}
	// AllocsPerRun calls push twice (once to warm up) before anything
	// drains, so the backlog it measures is 2*rounds pushes.
	drain := func() {
		for range 2 * rounds * len(events) {
			h.gate <- struct{}{}
		}
	}
	// Warm up: grow both of the registration's slices to that backlog.
	for range 2 {
		push()
		push()
		drain()
	}
	allocs := testing.AllocsPerRun(1, push)
	drain()
	assert.Less(t, allocs, float64(rounds), "allocations during %d pushes of %d events", rounds, len(events))
	// The listener's run loop too: push and deliver the same events, the
	// handler's goroutine taking each batch and calling the handler.
	allocs = testing.AllocsPerRun(1, func() {
		push()
		for range rounds * len(events) {
			h.gate <- struct{}{}
		}
	})
	assert.Less(t, allocs, float64(rounds), "allocations during %d pushes and deliveries of %d events", rounds, len(events))
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Equal(t, 8*rounds*len(events), h.n, "every event delivered")
}

var _ cache.ResourceEventHandler = (*gatedCounter)(nil)

// TestDrainedBurstIsReleased: a backlog larger than keepEvents (an initial
// list) is delivered whole, and once it is drained the registration keeps
// no buffer of that size.
func TestDrainedBurstIsReleased(t *testing.T) {
	f := New(clock.RealClock{}, Crash)
	h := &gatedCounter{gate: make(chan struct{})}
	initial := make([]any, 4*keepEvents)
	for i := range initial {
		initial[i] = i
	}
	l, err := f.Add(h, "counter", klog.Background(), 0, 0, initial)
	require.NoError(t, err)
	f.Start()
	defer f.Stop()
	burst := make([]Event, 2*keepEvents)
	for i := range burst {
		burst[i] = Event{Kind: Update, Obj: i, Old: i}
	}
	f.Push(burst) // grows the other buffer while the first drains
	for range len(initial) + 2*keepEvents {
		h.gate <- struct{}{}
	}
	parked := func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.waiting
	}
	pendingCap := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return cap(l.pending)
	}
	require.Eventually(t, parked, time.Minute, time.Millisecond, "the registration parks once drained")
	assert.LessOrEqual(t, pendingCap(), keepEvents, "pending buffer kept after the burst")
	// One more event: the run loop swaps its spare buffer in as pending.
	f.Push(burst[:1])
	h.gate <- struct{}{}
	require.Eventually(t, parked, time.Minute, time.Millisecond, "the registration parks once drained again")
	assert.LessOrEqual(t, pendingCap(), keepEvents, "spare buffer kept after the burst")
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Equal(t, len(initial)+2*keepEvents+1, h.n, "every event delivered")
}

package fanout

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// counter is a handler that counts, as fast as an enqueuing one.
type counter struct{ n int } // only the registration's goroutine writes it

func (c *counter) OnAdd(any, bool)   { c.n++ }
func (c *counter) OnUpdate(_, _ any) { c.n++ }
func (c *counter) OnDelete(any)      { c.n++ }

// feed is one registration on a started Fanout; push hands it a batch and
// returns once the registration has delivered it and parked.
type feed struct {
	f *Fanout
	l *Listener
	h *counter
}

func newFeed(t *testing.T) *feed {
	f := New(clock.RealClock{}, Crash)
	h := &counter{}
	l, err := f.Add(h, "counter", klog.Background(), 0, 0, nil)
	require.NoError(t, err)
	f.Start()
	t.Cleanup(f.Stop)
	return &feed{f, l, h}
}

func (d *feed) push(events []Event) {
	d.f.Push(events)
	for !d.idle() {
		time.Sleep(100 * time.Microsecond) // no allocation, unlike a ticker
	}
}

// idle reports whether the registration has drained and parked: its run
// loop has recycled the last batch by then.
func (d *feed) idle() bool {
	d.l.mu.Lock()
	defer d.l.mu.Unlock()
	return d.l.waiting && len(d.l.pending) == 0
}

func (d *feed) pendingCap() int {
	d.l.mu.Lock()
	defer d.l.mu.Unlock()
	return cap(d.l.pending)
}

func adds(n int) []Event {
	events := make([]Event, n)
	for i := range events {
		events[i] = Event{Kind: Add, Obj: i}
	}
	return events
}

// TestBuffersShrinkAfterBurst: an initial list handed over as the consumer
// pops it (batches of up to 1,000 events, client-go's batch size) grows
// both of a registration's buffers to 1,000 events, within keepEvents; the
// few dozen small batches that follow give them back, so a process with a
// registration per controller does not keep 80 KB per controller once
// synced.
func TestBuffersShrinkAfterBurst(t *testing.T) {
	d := newFeed(t)
	burst, one := adds(1000), adds(1)
	d.push(burst)
	d.f.Push(burst)
	d.f.Push(burst) // lands in the other buffer while the first drains
	d.push(nil)
	for !d.idle() {
		time.Sleep(100 * time.Microsecond)
	}
	for range 32 {
		d.push(one)
	}
	// The buffers alternate as pending: check both.
	assert.LessOrEqual(t, d.pendingCap(), 4*minKeep, "a buffer kept after the burst")
	d.push(one)
	assert.LessOrEqual(t, d.pendingCap(), 4*minKeep, "the other buffer kept after the burst")
	assert.Equal(t, 3*len(burst)+33, d.h.n, "every event delivered")
}

// TestMixedBatchesAllocateNothing: batches of a steady mix of sizes, a
// large one and then a few single events, keep their buffers: shrinking
// follows a burst, not every small batch. The count is process-wide, so
// the runtime's occasional allocation when a goroutine parks or wakes
// shows up in it: the bound is one per batch, where regrowing a buffer for
// every large batch would cost a dozen.
func TestMixedBatchesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on synchronisation")
	}
	d := newFeed(t)
	large, one := adds(1000), adds(1)
	const small = 4
	cycle := func() {
		d.push(large)
		for range small {
			d.push(one)
		}
	}
	for range 4 {
		cycle() // warm up: both buffers grow to the large batch
	}
	const cycles = 4
	allocs := testing.AllocsPerRun(cycles, cycle)
	assert.Less(t, allocs, float64(1+small), "allocations per cycle of one batch of %d and %d of 1", len(large), small)
}

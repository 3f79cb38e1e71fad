package workqtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/queuelab/queuelab/guarantee"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/internal/suite"
)

// diffKeys is the key universe of a differential run (small, so keys
// collide and come back); diffSeeds is how many seeded runs Run's
// differential property checks; seedOpsLen is the length of a seed's
// operation bytes, several hundred operations.
const (
	diffKeys   = 6
	diffSeeds  = 20
	seedOpsLen = 800
)

// diffSeeded runs Diff's check for seeds 1 to diffSeeds, one subtest each,
// so a failure names the seed that replays it.
func diffSeeded(t *testing.T, newQueue newStrings, g Guarantees) {
	for seed := range uint64(diffSeeds) {
		t.Run(fmt.Sprintf("seed=%d", seed+1), func(t *testing.T) { Diff(t, newQueue, g, SeedOps(seed+1)) })
	}
}

// SeedOps returns the operation bytes seed stands for: what Run's
// differential property checks for that seed, and what
// Diff(t, newQueue, g, SeedOps(seed)) replays when it names the seed.
func SeedOps(seed uint64) []byte {
	return suite.SeedOps(seed, seedOpsLen)
}

// Diff applies the operations encoded in ops, single-threaded, to a queue
// made by newQueue and to client-go's workqueue.NewTyped, and fails at the
// first observable difference, printing the operation trace; a failing ops
// is kept (suite.KeepFailingOps) to be committed and replayed. Operations:
// Add of a few keys, Get (only when it cannot block), Done of a held item,
// Len, ShuttingDown, ShutDown. Without g.Order == guarantee.OrderFIFO, Gets
// are issued in batches that empty the queue, and each batch is compared as
// a multiset. Any bytes are a valid program (a fuzz target passes its
// input); SeedOps makes them from a seed.
func Diff(t *testing.T, newQueue func() workqueue.TypedInterface[string], g Guarantees, ops []byte) {
	t.Helper()
	suite.KeepFailingOps(t, ops)
	if err := diff(newQueue, g.Order == guarantee.OrderFIFO, suite.NewOps(ops)); err != nil {
		t.Fatal(err)
	}
}

func diff(newQueue newStrings, fifo bool, src suite.Ops) error {
	got := newQueue()
	want := workqueue.NewTyped[string]()
	defer got.ShutDown()
	defer want.ShutDown()

	var trace []string
	var held []string // handed out, not yet Done
	fail := func(format string, args ...any) error {
		return fmt.Errorf("differential check against client-go failed (step %d): %s\ntrace:\n  %s",
			len(trace), fmt.Sprintf(format, args...), strings.Join(trace, "\n  "))
	}
	for !src.Done() {
		switch r := src.Intn(256); {
		case r < 102: // 40%
			k := fmt.Sprintf("k%d", src.Intn(diffKeys))
			trace = append(trace, "Add "+k)
			got.Add(k)
			want.Add(k)
		case r < 166: // 25%
			n := 1
			if !fifo {
				n = want.Len() // a whole batch: the same multiset either way
			}
			if n == 0 || want.Len() == 0 {
				if !want.ShuttingDown() {
					continue // Get would block
				}
				trace = append(trace, "Get (shut down, empty)")
				g, gs := got.Get()
				if _, ws := want.Get(); !gs || !ws {
					return fail("Get = (%q, shutdown=%v), want shutdown", g, gs)
				}
				continue
			}
			gs, ws := make([]string, n), make([]string, n)
			for i := range n {
				var gShut, wShut bool
				gs[i], gShut = got.Get()
				ws[i], wShut = want.Get()
				if gShut != wShut {
					return fail("Get shutdown = %v, want %v", gShut, wShut)
				}
			}
			held = append(held, ws...)
			if n > 1 {
				slices.Sort(gs)
				slices.Sort(ws)
			}
			trace = append(trace, fmt.Sprintf("Get ×%d → %q", n, ws))
			if !slices.Equal(gs, ws) {
				return fail("Get handed out %q, want %q", gs, ws)
			}
		case r < 218: // 20%
			if k, ok := suite.DoneAny(&src, &held, got, want); ok {
				trace = append(trace, "Done "+k)
			}
		case r < 243: // 10%
			trace = append(trace, "Len")
		case r < 255: // 5%
			trace = append(trace, "ShuttingDown")
			if g, w := got.ShuttingDown(), want.ShuttingDown(); g != w {
				return fail("ShuttingDown = %v, want %v", g, w)
			}
		default: // 1 in 256: most of a seed's run is before it, some runs never shut down
			trace = append(trace, "ShutDown")
			got.ShutDown()
			want.ShutDown()
		}
		// Len is observable after every step.
		if g, w := got.Len(), want.Len(); g != w {
			return fail("Len = %d, want %d", g, w)
		}
	}
	return nil
}

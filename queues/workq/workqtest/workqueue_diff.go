package workqtest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/queuelab/queuelab/guarantee"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/workq"
)

// diffSteps bounds one generated sequence; diffKeys is the key universe
// (small, so keys collide and come back).
const (
	diffSteps = 400
	diffKeys  = 6
)

// wqDifferential runs the seeds WithDiffSeeds selects, each diffSteps long
// over diffKeys keys; the fuzz target explores further.
func wqDifferential(t *testing.T, newQueue NewWorkQueue, c config) {
	for _, seed := range c.diffSeeds() {
		if err := diffWorkQueue(t, newQueue, seed, diffSteps, c); err != nil {
			t.Fatal(err)
		}
	}
}

// DiffWorkQueue applies a random sequence of steps operations, generated
// from seed, single-threaded to a queue made by newQueue and to client-go's
// workqueue.NewTyped, and fails at the first observable difference, printing
// the seed and the operation trace. Operations: Add of a few keys, Get (only
// when it cannot block), Done of a held item, Len, ShuttingDown, ShutDown.
// With a relaxed order (g.Order) Gets are issued in batches that empty the
// queue, and each batch is compared as a multiset.
func DiffWorkQueue(t *testing.T, newQueue NewWorkQueue, g workq.Guarantees, seed uint64, steps int) {
	t.Helper()
	if err := diffWorkQueue(t, newQueue, seed, steps, newConfig(g, nil)); err != nil {
		t.Fatal(err)
	}
}

func diffWorkQueue(t *testing.T, newQueue NewWorkQueue, seed uint64, steps int, c config) error {
	got := newQueue(t)
	want := workqueue.NewTyped[string]()
	defer got.ShutDown()
	defer want.ShutDown()

	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var trace []string
	var held []string // handed out, not yet Done
	fail := func(format string, args ...any) error {
		return fmt.Errorf("differential check against client-go failed (seed %d, step %d): %s\ntrace:\n  %s",
			seed, len(trace), fmt.Sprintf(format, args...), strings.Join(trace, "\n  "))
	}
	for range steps {
		switch r := rng.IntN(100); {
		case r < 40:
			k := fmt.Sprintf("k%d", rng.IntN(diffKeys))
			trace = append(trace, "Add "+k)
			got.Add(k)
			want.Add(k)
		case r < 65:
			n := 1
			if c.order != guarantee.OrderFIFO {
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
		case r < 85:
			if k, ok := suite.DoneAny(rng, &held, got, want); ok {
				trace = append(trace, "Done "+k)
			}
		case r < 95:
			trace = append(trace, "Len")
		case r < 98:
			trace = append(trace, "ShuttingDown")
			if g, w := got.ShuttingDown(), want.ShuttingDown(); g != w {
				return fail("ShuttingDown = %v, want %v", g, w)
			}
		default:
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

package informertest

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/queuelab/queuelab/internal/suite"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// diffSteps caps the operations of one Diff run.
const diffSteps = 60

// SeedOps returns pseudo-random operation bytes for seed: what a seeded
// Diff run replays (the seed in a subtest's name reproduces it).
func SeedOps(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, 4*diffSteps)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// Diff drives the informer newInformer builds (declaring g) and client-go's
// cache.NewSharedIndexInformer from one Source through the history ops
// encodes: creates, updates and deletes the watches see, changes they miss,
// and expired watches that force relists. Once the last relist is through,
// both stores must hold exactly the Source's pods, and each informer's
// handler — replaying its notifications into a map — must hold exactly its
// store, having seen every key's versions in order: what every informer
// keeps whatever g declares, since a key's order is never relaxed. ops may
// be any bytes (a fuzz target's input, SeedOps, a committed op file); a
// failure prints the history and keeps ops (suite.KeepFailingOps).
func Diff(t *testing.T, newInformer NewInformer, g Guarantees, ops []byte) {
	t.Helper()
	suite.KeepFailingOps(t, ops)
	synctest.Test(t, func(t *testing.T) {
		src := NewSource()
		infs := []cache.SharedIndexInformer{
			newInformer(t, src.ListerWatcher(), &corev1.Pod{}, cache.SharedIndexInformerOptions{}),
			cache.NewSharedIndexInformer(src.ListerWatcher(), &corev1.Pod{}, 0, cache.Indexers{}),
		}
		names := []string{"candidate", "clientgo"}
		views := make([]*view, len(infs))
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		defer func() { cancel(); wg.Wait() }()
		for i, inf := range infs {
			views[i] = &view{state: make(map[string]int)}
			if _, err := inf.AddEventHandler(views[i]); err != nil {
				t.Fatal(err)
			}
			wg.Go(func() { inf.RunWithContext(ctx) })
		}

		trace := history(src, suite.NewOps(ops))
		src.Expire()
		time.Sleep(time.Minute) // past the Reflectors' back-off
		synctest.Wait()

		want := make(map[string]int)
		for k, p := range src.Pods() {
			want[k] = rv(p)
		}
		fail := func(format string, args ...any) {
			t.Fatalf("%s\nhistory:\n  %s", fmt.Sprintf(format, args...), strings.Join(trace, "\n  "))
		}
		for i, inf := range infs {
			got := storedRVs(inf)
			if !maps.Equal(got, want) {
				fail("%s store %v, source %v", names[i], got, want)
			}
			v := views[i]
			v.mu.Lock()
			if v.err != "" {
				fail("%s handler: %s", names[i], v.err)
			}
			if !maps.Equal(v.state, want) {
				fail("%s handler saw %v, source %v", names[i], v.state, want)
			}
			v.mu.Unlock()
		}
	})
}

// history applies the operations ops encodes, on a few keys, to src and
// returns them, one line per operation.
func history(src *Source, ops suite.Ops) []string {
	var trace []string
	for step := 0; step < diffSteps && !ops.Done(); step++ {
		name := "p" + strconv.Itoa(ops.Intn(6))
		app := "v" + strconv.Itoa(ops.Intn(256))
		exists := src.Has("ns", name)
		var op string
		switch r := ops.Intn(10); {
		case r < 5 && exists:
			op = "update " + name
			src.Update(Pod("ns", name, app))
		case r < 5:
			op = "create " + name
			src.Create(Pod("ns", name, app))
		case r < 7:
			op = "delete " + name
			src.Delete("ns", name)
		// A change the watches miss comes with their expiry, as on a real
		// server, where only a broken watch misses anything.
		case r < 8:
			op = "put-unseen " + name + ", expire-watches"
			src.Put(Pod("ns", name, app))
			src.Expire()
		case r < 9:
			op = "forget-unseen " + name + ", expire-watches"
			src.Forget("ns", name)
			src.Expire()
		default:
			op = "expire-watches"
			src.Expire()
		}
		if ops.Intn(3) == 0 {
			op += "; settle"
			time.Sleep(time.Minute)
			synctest.Wait()
		}
		trace = append(trace, op)
	}
	return trace
}

// view replays a handler's notifications into key → resource version,
// checking that each key's versions only grow while it exists.
type view struct {
	mu    sync.Mutex
	state map[string]int
	err   string
}

func (v *view) OnAdd(obj any, _ bool) { v.set(obj.(*corev1.Pod)) }

func (v *view) OnUpdate(_, obj any) { v.set(obj.(*corev1.Pod)) }

func (v *view) OnDelete(obj any) {
	k := ""
	switch o := obj.(type) {
	case *corev1.Pod:
		k = key(o)
	case cache.DeletedFinalStateUnknown:
		k = o.Key
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.state[k]; !ok && v.err == "" {
		v.err = "delete of " + k + ", which it did not hold"
	}
	delete(v.state, k)
}

func (v *view) set(p *corev1.Pod) {
	v.mu.Lock()
	defer v.mu.Unlock()
	k, r := key(p), rv(p)
	if old, ok := v.state[k]; ok && r < old && v.err == "" {
		v.err = fmt.Sprintf("%s went back from version %d to %d", k, old, r)
	}
	v.state[k] = r
}

func rv(p *corev1.Pod) int {
	n, _ := strconv.Atoi(p.ResourceVersion)
	return n
}

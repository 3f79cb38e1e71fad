package queuetest_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/fifo"
	"github.com/queuelab/queuelab/queues/queuetest"
)

// fuzzTimeout turns a deadlock on some input into a failure with a goroutine
// dump (the fuzzer itself would wait forever).
const fuzzTimeout = 20 * time.Second

// The fuzz targets below run their seed corpus with every go test. To fuzz:
//
//	go test -run '^$' -fuzz FuzzDeltaFIFODifferential -fuzzminimizetime 50x ./queues/queuetest
//
// The sharded queues hash keys with a per-process seed, so coverage differs
// between runs of one input; without a small -fuzzminimizetime the fuzzer
// spends its time trying to minimize "new" inputs it cannot reproduce.

// fuzzSeeds is the seed corpus: a few pseudo-random operation sequences
// (the corpus under testdata/fuzz adds whatever the fuzzer finds).
func fuzzSeeds(f *testing.F) {
	r := rand.New(rand.NewPCG(2024, 7))
	for range 4 {
		b := make([]byte, 900)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
}

// FuzzFIFODifferential feeds fuzz input to the FIFO differential check, for
// every registered FIFO.
func FuzzFIFODifferential(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, e := range fifo.Impls {
			t.Run("impl="+e.Name, func(t *testing.T) {
				watchdog.Run(t, fuzzTimeout, func() {
					queuetest.DiffFIFO(t, func(_ *testing.T, kf cache.KeyFunc) cache.Queue { return e.New(kf) }, ops,
						fifoOptions(e.Guarantees)...)
				})
			})
		}
	})
}

// FuzzDeltaFIFODifferential feeds fuzz input to the DeltaFIFO differential
// check, for every registered DeltaFIFO but peers.
func FuzzDeltaFIFODifferential(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, e := range deltafifo.Impls {
			if e.Guarantees.Peer {
				continue
			}
			t.Run("impl="+e.Name, func(t *testing.T) {
				watchdog.Run(t, fuzzTimeout, func() {
					queuetest.DiffDeltaFIFO(t, func(_ *testing.T, o cache.DeltaFIFOOptions) cache.Queue { return e.New(o) }, ops,
						deltaFIFOOptions(e.Guarantees)...)
				})
			})
		}
	})
}

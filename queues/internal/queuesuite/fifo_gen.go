package queuesuite

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// The differential checks and their fuzz targets share one generator: an
// operation sequence is decoded from bytes, which a seeded PRNG produces for
// the differential subtests and the fuzzer produces for the fuzz targets.

// diffSteps bounds one generated sequence; diffKeys is the key universe
// (small, so keys collide, get deleted and come back).
const (
	diffSteps = 400
	diffKeys  = 6
)

// diffSeeds returns the seeds the differential subtests run.
func diffSeeds(c Config) []uint64 {
	seeds := make([]uint64, c.DiffRuns)
	for i := range seeds {
		seeds[i] = c.Seed + uint64(i)
	}
	return seeds
}

func seedName(seed uint64) string { return "seed=" + strconv.FormatUint(seed, 10) }

// SeedOps returns the operation bytes a seed stands for.
func SeedOps(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	b := make([]byte, 3*diffSteps)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// trace records the operations of one sequence, to print on failure.
type trace struct {
	t     *testing.T
	lines []string
}

func (tr *trace) add(format string, args ...any) {
	tr.lines = append(tr.lines, fmt.Sprintf("%3d  ", len(tr.lines))+fmt.Sprintf(format, args...))
}

// fail stops the test, printing the trace.
func (tr *trace) fail(format string, args ...any) {
	tr.t.Helper()
	tr.t.Fatalf("%s\nreproduce with the subtest's seed (or fuzz input); operations so far:\n%s",
		fmt.Sprintf(format, args...), strings.Join(tr.lines, "\n"))
}

// diffName is the object name of key number i of the universe.
func diffName(i int) string { return "k" + strconv.Itoa(i) }

// genList draws a Replace list from src: every key of the universe with
// probability 1/2, now and then twice, each entry a fresh object from
// newObj. per is each key's share of the list, in order.
func genList(src *suite.Ops, newObj func(i int) *metav1.PartialObjectMetadata) (list []any, per [diffKeys][]any) {
	for i := range diffKeys {
		if src.Intn(2) == 0 {
			continue
		}
		for range 1 + src.Intn(4)/3 {
			o := newObj(i)
			list = append(list, o)
			per[i] = append(per[i], o)
		}
	}
	return list, per
}

// synced reads q's HasSynced, failing the trace if it went back to false
// since *last or disagrees with the HasSyncedChecker's Done channel.
func (tr *trace) synced(q cache.Queue, last *bool) bool {
	tr.t.Helper()
	got := q.HasSynced()
	if *last && !got {
		tr.fail("HasSynced went back from true to false")
	}
	*last = got
	if closedAlready(q.HasSyncedChecker().Done()) != got {
		tr.fail("HasSynced() = %v disagrees with HasSyncedChecker().Done()", got)
	}
	return got
}

// FuzzTimeout turns a deadlock on some fuzz input into a failure with a
// goroutine dump (the fuzzer itself would wait forever).
const FuzzTimeout = 20 * time.Second

// FuzzSeeds adds the seed corpus of the differential fuzz targets: a few
// pseudo-random operation sequences.
func FuzzSeeds(f *testing.F) {
	r := rand.New(rand.NewPCG(2024, 7))
	for range 4 {
		b := make([]byte, 900)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
}

// syncModel is client-go's HasSynced rule for FIFO and DeltaFIFO alike,
// evaluated by the differential harnesses: synced once populated and every
// key queued by the first Replace has been popped. (client-go counts pops;
// under FIFO order that is the same, and it is what a per-shard order must
// mean.) certain turns false where client-go's own answer depends on its
// random Replace order; from then on only monotonicity and the Done
// channel are checked.
type syncModel struct {
	populated bool
	initial   map[int]bool // keys of the first Replace not popped yet
	certain   bool
}

// synced is client-go's answer. It never turns false again: initial is
// filled only before populated is set, and only shrinks after.
func (m *syncModel) synced() bool { return m.populated && len(m.initial) == 0 }

// replaced records a Replace after which queued says which keys are queued:
// the first one populates the queue and makes them the initial list. It
// reports whether this was that first Replace.
func (m *syncModel) replaced(queued [diffKeys]bool) bool {
	if m.populated {
		return false
	}
	m.populated = true
	m.initial = make(map[int]bool)
	for i, q := range queued {
		if q {
			m.initial[i] = true
		}
	}
	return true
}

// popped checks the isInInitialList the candidate passed with key i against
// client-go's rule, and counts i as popped.
func (m *syncModel) popped(tr *trace, i int, initial bool) {
	if m.certain && initial != m.initial[i] {
		tr.fail("%s: isInInitialList = %v, client-go says %v", diffName(i), initial, m.initial[i])
	}
	delete(m.initial, i)
}

// check compares the candidate's HasSynced with client-go's rule.
func (m *syncModel) check(tr *trace, cand cache.Queue, last *bool) {
	if got := tr.synced(cand, last); m.certain && got != m.synced() {
		tr.fail("HasSynced() = %v, client-go says %v", got, m.synced())
	}
}

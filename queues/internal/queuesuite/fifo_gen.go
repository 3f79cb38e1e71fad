package queuesuite

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

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

// SeedOps returns the operation bytes a seed stands for.
func SeedOps(seed uint64) []byte { return SeedBytes(seed, 0x9e3779b97f4a7c15, 3*diffSteps) }

// SeedBytes is how a seeded differential run expands its seed: n bytes
// from a PCG generator seeded with seed on stream, the same on every run
// and platform. Each suite keeps its own stream, so its seeds keep
// standing for the operations they always did.
func SeedBytes(seed, stream uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, stream))
	b := make([]byte, n)
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

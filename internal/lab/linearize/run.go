package linearize

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// sequential is a porcupine model over a comparable state S whose zero
// value is the empty structure, given its rules as typed functions: the
// frame every model here shares (zero state, ==, the type assertions), so
// each file states only how its structure behaves.
func sequential[S comparable, I, O any](step func(s S, i I, o O) (bool, S), describe func(i I, o O) string) porcupine.Model {
	return porcupine.Model{
		Init:  func() any { var zero S; return zero },
		Equal: func(a, b any) bool { return a.(S) == b.(S) },
		Step: func(st, in, out any) (bool, any) {
			return step(st.(S), in.(I), out.(O))
		},
		DescribeOperation: func(in, out any) string { return describe(in.(I), out.(O)) },
	}
}

// Config seeds and sizes a run. A history is one structure driven by
// Workers goroutines doing OpsPerWorker random operations each; a run
// records Histories of them at every GOMAXPROCS in Procs. Short histories
// keep porcupine's search cheap (it is exponential in the number of calls
// that overlap), many of them sample many interleavings.
type Config struct {
	// Seed makes operations and timings reproducible; interleavings still
	// depend on the scheduler, so a failure is reported with its seed,
	// GOMAXPROCS and history number to rerun it.
	Seed int64
	// Histories per GOMAXPROCS value.
	Histories int
	// Procs are the GOMAXPROCS values each run sets in turn.
	Procs []int
	// Workers is the number of goroutines driving one history.
	Workers int
	// OpsPerWorker is each worker's number of operations.
	OpsPerWorker int
	// Timeout bounds porcupine's search for one history; a search that
	// runs out reports Unknown, which a run counts as not passed.
	Timeout time.Duration
}

// DefaultConfig is the short run that make test includes.
func DefaultConfig() Config {
	return Config{Seed: 1, Histories: 40, Procs: []int{1, 2, 8}, Workers: 4, OpsPerWorker: 12, Timeout: 10 * time.Second}
}

// Result is one family × implementation × model line of a run.
type Result struct {
	Family, Impl, Model string
	// Info marks a relaxed variant checked against the strict model as
	// well: it shows whether the histories exercise the relaxation (an
	// Illegal here is expected, not a failure).
	Info bool
	// Histories checked and operations they held, in all.
	Histories, Ops int
	// Verdict is Ok when every history was linearizable, else the first
	// history's Illegal or Unknown, after which the run stops.
	Verdict porcupine.CheckResult
	// Where names the failing history (GOMAXPROCS, number, seed).
	Where   string
	Elapsed time.Duration
	// History is the failing history, for DescribeFailure.
	History []porcupine.Operation
	model   porcupine.Model
	timeout time.Duration
}

// DescribeFailure lists the failing history, calls ordered by start, and
// the longest prefixes porcupine could linearize; empty when none failed.
func (r Result) DescribeFailure() string {
	if r.History == nil {
		return ""
	}
	ops := slices.Clone(r.History)
	slices.SortFunc(ops, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "  [%4d,%4d] client %d: %s\n", op.Call, op.Return, op.ClientId, r.model.DescribeOperation(op.Input, op.Output))
	}
	return b.String()
}

// WriteVisualization writes porcupine's HTML view of the failing history:
// each partition's longest linearizable prefix and where it got stuck.
func (r Result) WriteVisualization(w io.Writer) error {
	_, info := porcupine.CheckOperationsVerbose(r.model, r.History, r.timeout)
	return porcupine.Visualize(r.model, info, w)
}

func (r Result) String() string {
	s := fmt.Sprintf("%-10s %-18s model=%-13s histories=%-4d ops=%-6d result=%-7s time=%v",
		r.Family, r.Impl, r.Model, r.Histories, r.Ops, r.Verdict, r.Elapsed.Round(time.Millisecond))
	if r.Where != "" {
		s += " at " + r.Where
	}
	if r.Info {
		s += " (strict model on a declared relaxation, informational)"
	}
	return s
}

// strictToo returns r, and when the variant declared a relaxation, also
// the strict check's result marked Info.
func strictToo(r Result, relaxed bool, strict func() Result) []Result {
	if !relaxed {
		return []Result{r}
	}
	s := strict()
	s.Info = true
	return []Result{r, s}
}

// recorder stamps each call with a logical clock read before the call and
// after its return, so real-time order between calls is exact whatever the
// timer resolution.
type recorder struct {
	clock   atomic.Int64
	moved   atomic.Int64 // calls returned
	blocked atomic.Int32 // blocking calls in progress
	mu      sync.Mutex
	ops     []porcupine.Operation
}

// call runs f as client's operation with input in and records it.
func (r *recorder) call(client int, in any, blocking bool, f func() any) any {
	if blocking {
		r.blocked.Add(1)
	}
	start := r.clock.Add(1)
	out := f()
	end := r.clock.Add(1)
	if blocking {
		r.blocked.Add(-1)
	}
	r.moved.Add(1)
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Call: start, Output: out, Return: end})
	r.mu.Unlock()
	return out
}

// session is one history's structure as the driver sees it.
type session interface {
	// op does one random operation of worker client.
	op(rng *rand.Rand, client int, w *workerState, r *recorder)
	// feed unblocks a worker blocked in Get by adding a fresh item, as
	// the recorded operation of client.
	feed(client int, r *recorder)
	// close releases the structure once every worker is done; unrecorded.
	close()
}

// workerState is what a worker holds between operations: the items Get
// handed it and it has not yet marked Done.
type workerState struct {
	held []int
}

// doneDue reports whether the worker, drawing n in [0, 100) for its next
// operation, marks a held item Done now: often, and always once it holds
// more than two, so that what it holds stays small.
func (w *workerState) doneDue(n int) bool { return len(w.held) > 0 && (n < 30 || len(w.held) > 2) }

// hold keeps the item a Get handed out, unless the Get reported shutdown.
func (w *workerState) hold(item int, shutdown bool) {
	if !shutdown {
		w.held = append(w.held, item)
	}
}

// takeRandom removes and returns a random held item.
func (w *workerState) takeRandom(rng *rand.Rand) int {
	i := rng.IntN(len(w.held))
	it := w.held[i]
	w.held[i] = w.held[len(w.held)-1]
	w.held = w.held[:len(w.held)-1]
	return it
}

// jitter varies the timing between a worker's operations: none, a yield,
// a short spin or a short sleep.
func jitter(rng *rand.Rand) {
	switch n := rng.IntN(100); {
	case n < 45:
	case n < 70:
		runtime.Gosched()
	case n < 95:
		for i, k := 0, rng.IntN(400); i < k; i++ {
			spinSink.Add(1)
		}
	default:
		time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
	}
}

var spinSink atomic.Int64

// record drives one history at GOMAXPROCS procs and returns its calls.
func record(cfg Config, procs int, seed uint64, s func() session) []porcupine.Operation {
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	sess := s()
	rec := &recorder{}
	var finished atomic.Int32
	var wg sync.WaitGroup
	for c := range cfg.Workers {
		wg.Go(func() {
			defer finished.Add(1)
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			var w workerState
			for range cfg.OpsPerWorker {
				jitter(rng)
				sess.op(rng, c, &w, rec)
			}
		})
	}
	// Feed while every unfinished worker is blocked and nothing moved
	// for a tick: only a new item can let them go on.
	for last := int64(-1); ; {
		left := int32(cfg.Workers) - finished.Load()
		if left == 0 {
			break
		}
		time.Sleep(20 * time.Microsecond)
		moved := rec.moved.Load()
		if moved == last && rec.blocked.Load() == left {
			sess.feed(cfg.Workers, rec)
		}
		last = moved
	}
	wg.Wait()
	sess.close()
	return rec.ops
}

// check runs cfg's histories of one implementation against model m.
func check(cfg Config, family, impl, model string, m porcupine.Model, s func() session) Result {
	res := Result{Family: family, Impl: impl, Model: model, Verdict: porcupine.Ok}
	start := time.Now()
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s", family, impl)
	base := uint64(cfg.Seed) ^ h.Sum64()
	for _, procs := range cfg.Procs {
		for i := range cfg.Histories {
			seed := base + uint64(procs)<<32 + uint64(i)
			ops := record(cfg, procs, seed, s)
			res.Histories++
			res.Ops += len(ops)
			if v := porcupine.CheckOperationsTimeout(m, ops, cfg.Timeout); v != porcupine.Ok {
				res.Verdict = v
				res.Where = fmt.Sprintf("GOMAXPROCS=%d history=%d seed=%d", procs, i, cfg.Seed)
				res.History, res.model, res.timeout = ops, m, cfg.Timeout
				res.Elapsed = time.Since(start)
				return res
			}
		}
	}
	res.Elapsed = time.Since(start)
	return res
}

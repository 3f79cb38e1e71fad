package scenario

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/loadgen/account"
	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/pipeline"
)

// faultStacks are client-go's shipped informer and the lab's drop-in
// (informer.NewSharedIndexInformer over the mutex store and client-go's
// RealFIFO).
const faultStacks = "clientgo,mutex+clientgo+clientgo"

// tiny shrinks fault scenario name to a few hundred objects and events
// and runs it on every faultStacks stack, checking each ledger; parallel
// runs share the wall time of the Reflector's backoffs.
func tiny(t *testing.T, name string, parallel bool, check func(*testing.T, *pipeline.Result)) {
	sc, err := Lookup(name)
	require.NoError(t, err)
	sc.Gen.Objects, sc.Gen.Namespaces, sc.Gen.Events = 200, 4, 1500
	stream, err := gen.Generate(sc.Gen)
	require.NoError(t, err)
	objs := gen.NewObjects(stream)
	stacks, err := pipeline.Default().Select(pipeline.Informer, faultStacks)
	require.NoError(t, err)
	for _, st := range stacks {
		t.Run(st.Name(pipeline.Informer), func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			watchdog.Run(t, watchdog.DefaultTimeout, func() {
				res, err := pipeline.Run(context.Background(), pipeline.Informer, st, stream, objs, sc.Opts)
				require.NoError(t, err)
				require.True(t, res.OK(), "stalled=%v violations:\n%s", res.Stalled, account.Summary(res.Violations))
				assert.Zero(t, res.ProcessErrors)
				assert.LessOrEqual(t, res.Converge, sc.Opts.Converge)
				check(t, res)
			})
		})
	}
}

// TestFaultsWatch: every injected fault fires, the Reflector answers each
// as client-go's does (a re-watch after a close or a 429, a relist after
// a 410 or a 500), and the ledger is clean.
func TestFaultsWatch(t *testing.T) {
	tiny(t, "faults-watch", true, func(t *testing.T, res *pipeline.Result) {
		src := res.Source
		assert.EqualValues(t, 7, src.Injected, "4 closes, a 410, a 429, a 500")
		assert.EqualValues(t, 4, src.Disconnects)
		assert.EqualValues(t, 1, src.Relists)
		assert.EqualValues(t, 1, src.Refused)
		assert.EqualValues(t, 1, src.InternalErrors)
		assert.EqualValues(t, 3, src.Lists, "the initial List and one per 410 and 500; closes and 429s re-watch")
		assert.EqualValues(t, 3+4+1+1, src.Watches, "one per List, close and refusal, and the refused call")
		assert.Zero(t, res.Skipped)
	})
}

// TestFaultsHandlers: the enqueuer's panics are skipped by the informer's
// policy and forgiven by the ledger for that state only; the blocking
// handler held nobody up and missed nothing.
func TestFaultsHandlers(t *testing.T) {
	tiny(t, "faults-handlers", false, func(t *testing.T, res *pipeline.Result) {
		assert.Positive(t, res.Skipped)
		assert.LessOrEqual(t, res.Skipped, int64(3))
	})
}

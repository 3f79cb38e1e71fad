package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/handlerfault"
)

// TestHandlerFaultsLedgerClean: in both styles, on the stock stack and a
// lab one, the controller's handler panics on three seeded notifications
// (skipped by the informer's panic policy, forgiven by the ledger for
// that state only) and a second registration blocks on two while the
// stream flows; nothing else may be lost, the blocked handler must hold
// nobody up and still see every key's final state, and the run must
// drain within its bound. Not parallel: panics switch
// utilruntime.ReallyCrash off process-wide.
func TestHandlerFaultsLedgerClean(t *testing.T) {
	s, objs := objectStream(t, 200, 4, 10, 1500)
	eachStockAndLabStack(t, func(t *testing.T, _ int, st Style, sk Stack) {
		o := DefaultOptions()
		o.Schedule = gen.Schedule{Rate: 3000}
		o.Handlers = handlerfault.Faults{Panics: 3, Blocks: 2, Block: 300 * time.Millisecond}
		o.Converge = 15 * time.Second
		res, err := Run(context.Background(), st, sk, s, objs, o)
		requireLedgerClean(t, res, err)
		assert.Positive(t, res.Skipped)
		assert.LessOrEqual(t, res.Skipped, int64(3))
	})
}

// TestHandlerFaultsNeedOneControllerOffline: the faults' books are one
// controller's, and an API server's versions are not the stream's.
func TestHandlerFaultsNeedOneControllerOffline(t *testing.T) {
	o := DefaultOptions()
	o.Handlers = handlerfault.Faults{Panics: 1}
	o.Controllers = 2
	var fe *gen.FieldError
	require.ErrorAs(t, o.Validate(), &fe)
	assert.Equal(t, "controllers", fe.Field)
}

package controller

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/queuelab/queuelab/loadgen/gen"
)

// TestRunAPIOutageLosesNoWrite takes the fake API server's writes away
// mid-stream: while it is "down", and for every seventh write besides,
// a Create, Patch or Delete fails with a transport error, each Create and
// Delete after the server applied it (the answer lost on the way back).
// The writers must retry each until accepted without applying it twice,
// and the books stay exact. (A Patch is not landed: the fake tracker
// notifies a patch that changes nothing, which a real API server does
// not.)
func TestRunAPIOutageLosesNoWrite(t *testing.T) {
	s, objs := objectStream(t, 100, 2, 10, 400)
	for _, st := range Styles {
		t.Run(string(st), func(t *testing.T) {
			client := fake.NewClientset()
			var down atomic.Bool
			var calls, failed, landed atomic.Int64
			apply := k8stesting.ObjectReaction(client.Tracker())
			for _, verb := range []string{"create", "patch", "delete"} {
				client.PrependReactor(verb, "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
					if !down.Load() && calls.Add(1)%7 != 0 {
						return false, nil, nil
					}
					if failed.Add(1); a.GetVerb() != "patch" {
						landed.Add(1)
						_, _, _ = apply(a)
					}
					return true, nil, errors.New("connection refused")
				})
			}
			o := DefaultOptions()
			o.Schedule = gen.Schedule{Rate: 2000}
			o.Converge = 10 * time.Second
			o.Outage = &Outage{After: 0.3, Interrupt: func(ctx context.Context) error {
				down.Store(true)
				defer down.Store(false)
				select {
				case <-time.After(200 * time.Millisecond):
				case <-ctx.Done():
				}
				return nil
			}}
			res, err := RunAPI(context.Background(), client, "outage", st, Baseline(st), s, objs, o)
			requireLedgerClean(t, res, err)
			assert.Positive(t, landed.Load(), "some writes landed before their error")
			assert.Equal(t, failed.Load(), res.WriteRetries, "every failed write was retried")
			assert.GreaterOrEqual(t, res.Outage, 200*time.Millisecond)
			assert.Positive(t, res.Source.Lists, "the informer listed")
			assert.Positive(t, res.Source.Watches, "the informer watched")
		})
	}
}

// TestOutageNeedsAPIServer: Run has no server to take away.
func TestOutageNeedsAPIServer(t *testing.T) {
	s, objs := tinyStream(t)
	o := DefaultOptions()
	o.Outage = &Outage{After: 0.5, Interrupt: func(context.Context) error { return nil }}
	_, err := Run(context.Background(), ClientGo, Baseline(ClientGo), s, objs, o)
	var fe *gen.FieldError
	require.ErrorAs(t, err, &fe)
	o.Outage.After = 1
	_, err = RunAPI(context.Background(), fake.NewClientset(), "x", ClientGo, Baseline(ClientGo), s, objs, o)
	require.ErrorAs(t, err, &fe)
}

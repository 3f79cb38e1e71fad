package workq_test

import (
	"strings"
	"testing"

	"k8s.io/client-go/util/workqueue"

	"github.com/queuelab/queuelab/queues/workq"
)

// Bad input to a constructor is an error that says what is wrong, never a
// panic or a half-configured queue.
func TestConstructorsRejectBadInput(t *testing.T) {
	base, _ := workq.NewMutex[string]()
	limiter := workqueue.DefaultTypedControllerRateLimiter[string]()
	cases := []struct {
		name, want string
		build      func() (any, error)
	}{
		{"negative shards", "out of range", func() (any, error) { return workq.NewSharded[string](workq.WithShards(-1)) }},
		{"too many shards", "out of range", func() (any, error) { return workq.NewSharded[string](workq.WithShards(1 << 20)) }},
		{"capacity on sharded", "does not take option WithCapacity", func() (any, error) {
			return workq.NewSharded[string](workq.WithCapacity(8))
		}},
		{"shards on ring", "does not take option WithShards", func() (any, error) { return workq.NewRing[string](workq.WithShards(8)) }},
		{"zero capacity", "out of range", func() (any, error) { return workq.NewRing[string](workq.WithCapacity(0)) }},
		{"nil option", "nil option", func() (any, error) { return workq.NewRing[string](nil) }},
		{"nil queue", "nil queue", func() (any, error) { return workq.NewDelaying[string](nil) }},
		{"nil clock", "nil clock", func() (any, error) { return workq.NewDelaying[string](base, workq.WithClock(nil)) }},
		{"nil limiter", "nil rate limiter", func() (any, error) { return workq.NewRateLimiting[string](base, nil) }},
		{"metrics without provider", "need a provider", func() (any, error) {
			return workq.NewMutex[string](workq.WithMetrics(nil, "q", nil))
		}},
		{"nil layer option", "nil option", func() (any, error) { return workq.NewRateLimiting(base, limiter, nil) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := c.build(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestConstructorsAcceptGoodInput(t *testing.T) {
	s, err := workq.NewSharded[string](workq.WithShards(3))
	if err != nil {
		t.Fatal(err)
	}
	s.ShutDown()
	r, err := workq.NewRing[string](workq.WithCapacity(5))
	if err != nil {
		t.Fatal(err)
	}
	r.ShutDown()
}

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
	base, err := workq.NewMutex[string](workq.Options{})
	if err != nil {
		t.Fatal(err)
	}
	limiter := workqueue.DefaultTypedControllerRateLimiter[string]()
	var provider workqueue.MetricsProvider = newRecorder()
	cases := []struct {
		name, want string
		build      func() (any, error)
	}{
		{"negative shards", "out of range", func() (any, error) { return workq.NewSharded[string](workq.Options{Shards: -1}) }},
		{"too many shards", "out of range", func() (any, error) { return workq.NewSharded[string](workq.Options{Shards: 1 << 20}) }},
		{"capacity on sharded", "only a Ring queue has a capacity", func() (any, error) {
			return workq.NewSharded[string](workq.Options{Capacity: 8})
		}},
		{"shards on ring", "only a Sharded queue has shards", func() (any, error) { return workq.NewRing[string](workq.Options{Shards: 8}) }},
		{"shards on mutex", "only a Sharded queue has shards", func() (any, error) { return workq.NewMutex[string](workq.Options{Shards: 8}) }},
		{"negative capacity", "out of range", func() (any, error) { return workq.NewRing[string](workq.Options{Capacity: -1}) }},
		{"nil queue", "nil queue", func() (any, error) { return workq.NewDelaying[string](nil, workq.LayerOptions{}) }},
		{"nil limiter", "nil rate limiter", func() (any, error) { return workq.NewRateLimiting[string](base, nil, workq.LayerOptions{}) }},
		{"metrics without a name", "set both or neither", func() (any, error) {
			return workq.NewMutex[string](workq.Options{MetricsProvider: provider})
		}},
		{"a name without metrics", "set both or neither", func() (any, error) { return workq.NewRing[string](workq.Options{Name: "q"}) }},
		{"retry metrics without a name", "set both or neither", func() (any, error) {
			return workq.NewRateLimiting(base, limiter, workq.LayerOptions{MetricsProvider: provider})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := c.build(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// The zero Options are valid for every constructor, and so are settings in
// range, rounded where the doc says.
func TestConstructorsAcceptGoodInput(t *testing.T) {
	for name, build := range map[string]func() (workqueue.TypedInterface[string], error){
		"mutex":   func() (workqueue.TypedInterface[string], error) { return workq.NewMutex[string](workq.Options{}) },
		"sharded": func() (workqueue.TypedInterface[string], error) { return workq.NewSharded[string](workq.Options{}) },
		"sharded-3": func() (workqueue.TypedInterface[string], error) {
			return workq.NewSharded[string](workq.Options{Shards: 3})
		},
		"ring": func() (workqueue.TypedInterface[string], error) { return workq.NewRing[string](workq.Options{}) },
		"ring-capacity5": func() (workqueue.TypedInterface[string], error) {
			return workq.NewRing[string](workq.Options{Capacity: 5})
		},
	} {
		q, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		q.ShutDown()
	}
}

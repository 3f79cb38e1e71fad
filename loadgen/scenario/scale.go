package scenario

import (
	"time"

	"github.com/queuelab/queuelab/loadgen/gen"
	"github.com/queuelab/queuelab/loadgen/pipeline"
)

// The scale scenarios' sizes: a large cluster's pods as a multi-cluster
// controller holds them, small (no payload: names, labels, a
// resourceVersion and an empty annotation), and fewer at the default
// payload.
const (
	scaleObjects      = 1_000_000
	scaleSmallPayload = 0
	scaleSizedObjects = 200_000
)

// scaleStacks are the informers a scale run compares: client-go's shipped
// informer (the baseline), the drop-in as a controller gets it without
// choosing parts, and the drop-in over the lock-free store and in-order
// lock-free FIFO (the stack whose writer never waits for a lister).
const scaleStacks = "clientgo," + pipeline.DefaultStack + ",lockfree+inorder-lockfree"

// scale is an informer restarted over objects pods of payload bytes each,
// then a steady 5000 updates/s for 60k events (12 s) during which the
// watch expires twice and the Reflector relists everything: the store
// pipeline without listers, measuring the footprint
// (pipeline.Options.Footprint): time to synced, the informer's own heap
// per object, the heap and the watch's staleness within each relist. No
// missed deletes, resyncs or disconnects: the relists are the only
// protocol events, and every stack sees the same two.
func scale(name, doc string, objects, payload int) Scenario {
	g := gen.Defaults()
	g.Objects, g.Namespaces, g.Payload = objects, 1000, payload
	g.Events = 60_000
	// A relist every 20k events (20 s simulated at 1000/s): at 20k and
	// 40k, the last relist well before the stream's end.
	g.RelistEvery, g.Missed = 20*time.Second, 0
	o := pipeline.DefaultOptions()
	o.Readers = 0
	o.Schedule = gen.Schedule{Rate: 5000}
	o.Footprint = true
	// The initial list makes no notification until the source has built
	// a million objects and the Reflector extracted them: half a minute
	// on a busy 2-core machine.
	o.Stall = 2 * time.Minute
	return Scenario{Name: name, Doc: doc, Gen: g, Opts: o, Pipelines: []pipeline.Kind{pipeline.Store},
		Stacks: map[pipeline.Kind]string{pipeline.Store: scaleStacks}}
}

// scaleScenarios are the scale scenarios, small pods first.
func scaleScenarios() []Scenario {
	return []Scenario{
		scale("scale", "1M small pods: time to synced, informer heap per object, then 5000 updates/s with two full relists: peak heap and staleness during them (not in CI: make scale)",
			scaleObjects, scaleSmallPayload),
		scale("scale-200k", "the scale scenario over 200k pods at the default 256-byte payload (not in CI: make scale)",
			scaleSizedObjects, gen.Defaults().Payload),
	}
}

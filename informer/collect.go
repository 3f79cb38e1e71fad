package informer

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer/internal/fanout"
)

// collector is the consumer's event handler: it turns what one pop did to
// the store into fan-out events, held until the pop is over so the handlers
// get the whole pop in one hand-off. Only the consumer goroutine uses it.
type collector struct {
	events   []fanout.Event
	mutation cache.MutationDetector
}

var _ cache.ResourceEventHandler = (*collector)(nil)

func (c *collector) OnAdd(obj any, isInInitialList bool) {
	c.mutation.AddObject(obj)
	c.events = append(c.events, fanout.Event{Kind: fanout.Add, Obj: obj, InInitialList: isInInitialList})
}

// OnUpdate marks an update that keeps the resource version as a sync, which
// only handlers due for a resync receive — a relist that finds an object
// unchanged notifies nobody else, as with client-go.
func (c *collector) OnUpdate(old, obj any) {
	c.mutation.AddObject(obj)
	c.events = append(c.events, fanout.Event{Kind: fanout.Update, Old: old, Obj: obj, Sync: sameVersion(old, obj)})
}

func (c *collector) OnDelete(obj any) {
	c.events = append(c.events, fanout.Event{Kind: fanout.Delete, Obj: obj})
}

// flush hands the events collected during one pop to the handlers and
// keeps the slice, emptied of its objects, for the next pop unless a burst
// (the initial list) grew it past reuse (fanout.Recycle).
func (c *collector) flush(f *fanout.Fanout) {
	f.Push(c.events)
	c.events = fanout.Recycle(c.events)
}

func sameVersion(old, obj any) bool {
	a, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	b, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	return a.GetResourceVersion() == b.GetResourceVersion()
}

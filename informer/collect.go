package informer

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer/internal/fanout"
)

// collector is the consumer's event handler: it turns what one pop did to
// the store into fan-out events, held until the pop is over so the handlers
// get the whole pop in one hand-off, or until chunkEvents are held: a
// relist's million notifications go to the handlers in pieces of one
// reusable buffer (about chunkEvents), as client-go's consumer distributes each notification as
// it goes, instead of in a buffer grown to the whole list (20% of the CPU
// of a million-object initial sync went to growing it and its copy in each
// registration, results/notes.md). Only the consumer goroutine uses it, and
// only while it holds the informer's block lock, so a late registration
// still joins between pops.
type collector struct {
	events   []fanout.Event
	fan      *fanout.Fanout
	mutation cache.MutationDetector
}

// chunkEvents is the collector's buffer capacity past which a full buffer
// is handed on mid-pop instead of grown. The buffer thus never grows past
// twice chunkEvents, which fanout.Recycle keeps, and is reused however
// large a pop is.
const chunkEvents = 1024

var _ cache.ResourceEventHandler = (*collector)(nil)

func (c *collector) OnAdd(obj any, isInInitialList bool) {
	c.mutation.AddObject(obj)
	c.hold(fanout.Event{Kind: fanout.Add, Obj: obj, InInitialList: isInInitialList})
}

// OnUpdate marks an update that keeps the resource version as a sync, which
// only handlers due for a resync receive — a relist that finds an object
// unchanged notifies nobody else, as with client-go.
func (c *collector) OnUpdate(old, obj any) {
	c.mutation.AddObject(obj)
	c.hold(fanout.Event{Kind: fanout.Update, Old: old, Obj: obj, Sync: sameVersion(old, obj)})
}

func (c *collector) OnDelete(obj any) {
	c.hold(fanout.Event{Kind: fanout.Delete, Obj: obj})
}

// hold keeps e for the end of the pop, handing on what is held first if
// the buffer is full and at least chunkEvents long.
func (c *collector) hold(e fanout.Event) {
	if len(c.events) == cap(c.events) && cap(c.events) >= chunkEvents {
		c.flush()
	}
	c.events = append(c.events, e)
}

// flush hands the events collected during the pop to the handlers and
// keeps the slice, emptied of its objects, for what follows.
func (c *collector) flush() {
	c.fan.Push(c.events)
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

package inordertest

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/internal/queuesuite"
)

// newQueue builds a fresh, empty queue honouring opts for one property,
// closed when the property ends; an implementation that rejects opts fails
// the test.
type newQueue func(t *testing.T, opts inorder.Options) inorder.Queue

// perTest is a constructor as the properties call it.
func perTest(build func(inorder.Options) (inorder.Queue, error)) newQueue {
	return func(t *testing.T, opts inorder.Options) inorder.Queue {
		t.Helper()
		q, err := build(opts)
		if err != nil {
			t.Fatalf("New(%+v): %v", opts, err)
		}
		t.Cleanup(q.Close)
		return q
	}
}

// obj is a suite object "ns/<name>" at resource version rv.
func obj(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// Describe spells one event for comparisons and failure messages:
// "Added ns/a@1", "Deleted tomb(ns/a, ns/a@2)", "ReplacedAll 7 [ns/a@1 ns/b@1]",
// "SyncAll", "Bookmark 9".
func Describe(d cache.Delta) string {
	return string(d.Type) + " " + describeObj(d.Object)
}

func describeObj(o any) string {
	switch v := o.(type) {
	case nil:
		return "<nil>"
	case cache.DeletedFinalStateUnknown:
		return "tomb(" + v.Key + ", " + describeObj(v.Obj) + ")"
	case cache.ReplacedAllInfo:
		parts := make([]string, len(v.Objects))
		for i, x := range v.Objects {
			parts[i] = describeObj(x)
		}
		return v.ResourceVersion + " [" + strings.Join(parts, " ") + "]"
	case cache.SyncAllInfo:
		return ""
	case cache.BookmarkInfo:
		return v.ResourceVersion
	case metav1.Object:
		return v.GetNamespace() + "/" + v.GetName() + "@" + v.GetResourceVersion()
	default:
		return fmt.Sprintf("%T(%v)", o, o)
	}
}

// popped is one call of a process function: the events handed over and
// whether they were part of the initial list; batch says processBatch was
// called (not processSingle).
type popped struct {
	events  []string
	initial bool
	batch   bool
}

func (p popped) String() string {
	kind := "single"
	if p.batch {
		kind = "batch"
	}
	return fmt.Sprintf("%s%v initial=%v", kind, p.events, p.initial)
}

func describeAll(ds []cache.Delta) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = Describe(d)
	}
	return out
}

// popBatch calls PopBatch once and records what it handed over.
func popBatch(q inorder.Queue) (popped, error) {
	var p popped
	err := q.PopBatch(func(ds []cache.Delta, initial bool) error {
		p = popped{events: describeAll(ds), initial: initial, batch: true}
		return nil
	}, record(&p))
	return p, err
}

// record is a Pop process function writing down what it was handed into p.
func record(p *popped) cache.PopProcessFunc {
	return func(item any, initial bool) error {
		*p = popped{events: describeAll(item.(cache.Deltas)), initial: initial}
		return nil
	}
}

// popEvent calls Pop once and records what it handed over, for pop and
// drain alike.
func popEvent(q inorder.Queue) (popped, any, error) {
	var p popped
	item, err := q.Pop(record(&p))
	return p, item, err
}

// pop calls Pop once and records the event.
func pop(t *testing.T, q inorder.Queue) popped {
	t.Helper()
	p, item, err := popEvent(q)
	if err != nil {
		t.Fatalf("Pop: %v", err)
	}
	if ds, ok := item.(cache.Deltas); !ok || len(ds) != 1 {
		t.Fatalf("Pop returned %T %v, want a one-event cache.Deltas", item, item)
	}
	return p
}

// drain closes q and pops every remaining event, one by one.
func drain(t *testing.T, q inorder.Queue) []string {
	t.Helper()
	var got []string
	for _, p := range queuesuite.Drain(t, q, func() (popped, error) {
		p, _, err := popEvent(q)
		return p, err
	}) {
		got = append(got, p.events...)
	}
	return got
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantEvents(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n  got  %q\n  want %q", got, want)
	}
}

// knownStore is a per-object mode's KnownObjects holding objs.
func knownStore(objs ...any) cache.Store {
	s := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	for _, o := range objs {
		_ = s.Add(o)
	}
	return s
}

package queuesuite

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
)

// drivesController runs the queue under a real client-go controller
// (cache.New: a Reflector listing and watching a fake source, the
// controller's processLoop popping) with KnownObjects being the consumer's
// store, as an informer wires it. With batch, Config.ProcessBatch is set, so
// a queue that is a cache.QueueWithBatch is drained through PopBatch. The
// store must converge to the source through the initial list, then
// through adds, updates and deletes.
func drivesController(t *testing.T, newQ NewDeltaFIFO, batch bool) {
	source := fcache.NewFakeControllerSource()
	defer source.Shutdown()
	for i := range 40 {
		source.Add(obj("c"+fmt.Sprint(i), ""))
	}
	store := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	q := newQ(t, cache.DeltaFIFOOptions{KnownObjects: store, EmitDeltaTypeReplaced: true})

	var mu sync.Mutex // guards the test's view; the controller has one consumer
	changed := make(chan struct{}, 1)
	var errs []string
	apply := func(ds cache.Deltas) {
		if err := ApplyDeltas(store, ds); err != nil {
			errs = append(errs, err.Error())
		}
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	cfg := &cache.Config{
		Queue:         q,
		ListerWatcher: listThenWatch{source},
		ObjectType:    &metav1.PartialObjectMetadata{},
		Process: func(item any, _ bool) error {
			ds, ok := item.(cache.Deltas)
			if !ok {
				return fmt.Errorf("Process got %T, want cache.Deltas", item)
			}
			mu.Lock()
			defer mu.Unlock()
			apply(ds)
			return nil
		},
	}
	batches := 0
	if batch {
		cfg.ProcessBatch = func(deltas []cache.Delta, _ bool) error {
			mu.Lock()
			defer mu.Unlock()
			batches++
			seen := make(map[string]bool, len(deltas))
			for _, d := range deltas {
				k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(d.Object)
				if seen[k] {
					errs = append(errs, "a batch holds two deltas of "+k)
				}
				seen[k] = true
				apply(cache.Deltas{d})
			}
			return nil
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	ctrl := cache.New(cfg)
	stopped := make(chan struct{})
	go func() { ctrl.RunWithContext(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped }()

	<-ctrl.HasSyncedChecker().Done()
	converge := func() {
		for {
			mu.Lock()
			got, want := snapshot(store.List()), sourceSnapshot(t, source)
			done := maps.Equal(got, want)
			mu.Unlock()
			if done {
				return
			}
			<-changed // the watchdog fails the test if this never comes
		}
	}
	converge() // the initial list
	if !ctrl.HasSynced() {
		t.Error("controller not synced after the initial list was processed")
	}
	for i := range 40 {
		switch i % 4 {
		case 0:
			source.Delete(obj("c"+fmt.Sprint(i), ""))
		case 1:
			source.Modify(obj("c"+fmt.Sprint(i), ""))
		case 2:
			source.Add(obj("n"+fmt.Sprint(i), ""))
		}
	}
	converge() // the watch events
	mu.Lock()
	defer mu.Unlock()
	for _, e := range errs {
		t.Error(e)
	}
	if batch && batches == 0 {
		if _, ok := q.(cache.QueueWithBatch); ok {
			t.Error("a QueueWithBatch under a controller with ProcessBatch never got a batch")
		}
	}
}

// snapshot maps the objects' keys to their resourceVersions.
func snapshot(objs []any) map[string]string {
	m := make(map[string]string, len(objs))
	for _, o := range objs {
		a := o.(metav1.Object)
		m[a.GetNamespace()+"/"+a.GetName()] = a.GetResourceVersion()
	}
	return m
}

func sourceSnapshot(t *testing.T, source *fcache.FakeControllerSource) map[string]string {
	t.Helper()
	list, err := source.List(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		t.Fatal(err)
	}
	objs := make([]any, len(items))
	for i, it := range items {
		objs[i] = it
	}
	return snapshot(objs)
}

// listThenWatch tells the Reflector the fake source has no watch-list
// streaming, so it lists and then watches.
type listThenWatch struct{ *fcache.FakeControllerSource }

func (listThenWatch) IsWatchListSemanticsUnSupported() bool { return true }

package deltafifo_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/deltafifo"
)

// A lab DeltaFIFO drops in where client-go's goes: here as the Queue of a
// store's consumer, with the store as KnownObjects, just as cache.New's
// Config wires it.
func Example() {
	store := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	q, err := deltafifo.NewSharded(deltafifo.Options{
		DeltaFIFOOptions: cache.DeltaFIFOOptions{KnownObjects: store, EmitDeltaTypeReplaced: true},
	})
	if err != nil {
		panic(err)
	}
	pod := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
	_ = q.Replace([]any{pod}, "1")
	_, _ = q.Pop(func(obj any, isInInitialList bool) error {
		for _, d := range obj.(cache.Deltas) {
			fmt.Println(d.Type, isInInitialList)
			_ = store.Update(d.Object)
		}
		return nil
	})
	fmt.Println("synced:", q.HasSynced())
	// Output:
	// Replaced true
	// synced: true
}

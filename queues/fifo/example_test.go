package fifo_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/queuelab/queuelab/queues/fifo"
)

// A FIFO keeps one entry per key: a second Add of a queued key replaces
// its object and keeps its place, a Delete drops it, and Pop hands out the
// oldest key's newest object.
func Example() {
	q, err := fifo.NewRing(fifo.Options{}) // the zero Options: namespace/name keys, default layout
	if err != nil {
		panic(err)
	}
	defer q.Close()
	pod := func(name, rv string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
	}
	_ = q.Add(pod("web", "1"))
	_ = q.Add(pod("db", "1"))
	_ = q.Add(pod("cache", "1"))
	_ = q.Update(pod("web", "2")) // replaces web's object, keeps its place
	_ = q.Delete(pod("db", "1"))  // db is never popped

	for range 2 {
		_, _ = q.Pop(func(obj any, _ bool) error {
			p := obj.(*metav1.PartialObjectMetadata)
			fmt.Println(p.Name, p.ResourceVersion)
			return nil
		})
	}
	// Output:
	// web 2
	// cache 1
}

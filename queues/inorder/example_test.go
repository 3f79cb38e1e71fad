package inorder_test

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/queues/inorder"
)

// The queue as an informer's Reflector and consumer see it: a relist is
// one ReplacedAll event, popped alone and counted as the initial list;
// later events come out in arrival order, a run of distinct keys in one
// PopBatch call.
func Example() {
	q, err := inorder.NewLockFree(inorder.Options{}) // the zero Options: the queue informers build
	if err != nil {
		panic(err)
	}
	defer q.Close()
	pod := func(name, rv string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
	}
	_ = q.Replace([]any{pod("web-1", "1"), pod("web-2", "1")}, "1") // the Reflector's list
	_ = q.Add(pod("db-0", "2"))                                     // then its watch events
	_ = q.Update(pod("web-1", "3"))
	_ = q.Delete(pod("web-2", "4"))

	single := func(item any, initial bool) error {
		fmt.Println("single:", describe(item.(cache.Deltas)), "initial:", initial)
		return nil
	}
	batch := func(ds []cache.Delta, initial bool) error {
		fmt.Println("batch:", describe(ds), "initial:", initial)
		return nil
	}
	_ = q.PopBatch(batch, single) // a ReplacedAll travels alone
	fmt.Println("synced:", q.HasSynced())
	_ = q.PopBatch(batch, single)
	// Output:
	// single: ReplacedAll[web-1 web-2] initial: true
	// synced: true
	// batch: Added(db-0) Updated(web-1) Deleted(web-2) initial: false
}

// describe spells events as "Type(name)", a ReplacedAll as its list.
func describe(ds []cache.Delta) string {
	var parts []string
	for _, d := range ds {
		switch o := d.Object.(type) {
		case cache.ReplacedAllInfo:
			var names []string
			for _, x := range o.Objects {
				names = append(names, x.(metav1.Object).GetName())
			}
			parts = append(parts, fmt.Sprintf("%s%v", d.Type, names))
		case metav1.Object:
			parts = append(parts, fmt.Sprintf("%s(%s)", d.Type, o.GetName()))
		}
	}
	return strings.Join(parts, " ")
}

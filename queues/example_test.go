package queues_test

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/queuelab/queuelab/queues"
	"github.com/queuelab/queuelab/queues/fifo"
)

// A process function that cannot handle an object yet returns ErrRequeue:
// Pop puts the object back (unless its key was queued again meanwhile) and
// returns the wrapped cause, which errors.Is still sees.
func ExampleErrRequeue() {
	q, err := fifo.NewMutex(fifo.Options{})
	if err != nil {
		panic(err)
	}
	defer q.Close()
	errNotReady := errors.New("dependency not ready")
	_ = q.Add(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}})

	_, err = q.Pop(func(obj any, _ bool) error {
		return queues.ErrRequeue{Err: errNotReady}
	})
	fmt.Println(errors.Is(err, errNotReady))
	_, _ = q.Pop(func(obj any, _ bool) error { // popped again: it was put back
		fmt.Println(obj.(*metav1.PartialObjectMetadata).Name)
		return nil
	})
	// Output:
	// true
	// web
}

package informertest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
)

// recorder is a handler writing down what it is told, one line per call:
// "add ns/name rv initial", "update ns/name oldrv->rv",
// "delete ns/name rv" or "delete ns/name unknown(rv)" for a tombstone.
// gate, when set, is received from before each call (a slow handler);
// panicOn names keys whose adds panic.
type recorder struct {
	suite.Lines
	gate    chan struct{}
	panicOn map[string]bool
}

var _ cache.ResourceEventHandler = (*recorder)(nil)

func (r *recorder) OnAdd(obj any, initial bool) {
	r.wait()
	p := obj.(*corev1.Pod)
	if r.panicOn[key(p)] {
		panic("informertest: handler panics on " + key(p))
	}
	r.Log(fmt.Sprintf("add %s %s %v", key(p), p.ResourceVersion, initial))
}

func (r *recorder) OnUpdate(old, obj any) {
	r.wait()
	o, p := old.(*corev1.Pod), obj.(*corev1.Pod)
	r.Log(fmt.Sprintf("update %s %s->%s", key(p), o.ResourceVersion, p.ResourceVersion))
}

func (r *recorder) OnDelete(obj any) {
	r.wait()
	switch o := obj.(type) {
	case *corev1.Pod:
		r.Log(fmt.Sprintf("delete %s %s", key(o), o.ResourceVersion))
	case cache.DeletedFinalStateUnknown:
		r.Log(fmt.Sprintf("delete %s unknown(%s)", o.Key, o.Obj.(*corev1.Pod).ResourceVersion))
	default:
		r.Log(fmt.Sprintf("delete %T", obj))
	}
}

func (r *recorder) wait() {
	if r.gate != nil {
		<-r.gate
	}
}

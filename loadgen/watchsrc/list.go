package watchsrc

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// podList is what List returns. Its Items are pointers, so
// meta.ExtractListWithAlloc hands the Reflector the very objects the source
// emitted instead of shallow copies: a relist costs the pipeline what a
// decoded list would, and nothing for the harness.
type podList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []*corev1.Pod
}

var _ runtime.Object = (*podList)(nil)

// DeepCopyObject satisfies runtime.Object; the Reflector never calls it,
// and the items are immutable, so a copy of the slice is deep enough.
func (l *podList) DeepCopyObject() runtime.Object {
	c := *l
	c.Items = append([]*corev1.Pod(nil), l.Items...)
	return &c
}

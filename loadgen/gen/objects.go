package gen

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AppLabel is the label every generated object carries, with Labels
// distinct values.
const AppLabel = "app"

// PayloadAnnotation holds each object's Payload bytes.
const PayloadAnnotation = "queuelab.io/payload"

// namePrefix precedes the key index in every object name; KeyIndex parses
// it back without a map lookup.
const namePrefix = "pod-"

// Objects builds the Pods of a stream's key space. Names, namespaces and
// label maps are built once and shared (read-only, as informer objects
// are); each Build allocates what a watch decoder would: the Pod, its
// resourceVersion string, its annotations and a private copy of the payload.
type Objects struct {
	names      []string
	keys       []string
	namespaces []string
	labels     []map[string]string
	payload    string
}

// NewObjects prepares the key space of s.
func NewObjects(s *Stream) *Objects {
	cfg := s.Config
	o := &Objects{
		names:      make([]string, s.Universe()),
		keys:       make([]string, s.Universe()),
		namespaces: make([]string, cfg.Namespaces),
		labels:     make([]map[string]string, cfg.Labels),
	}
	for i := range o.namespaces {
		o.namespaces[i] = "ns-" + strconv.Itoa(i)
	}
	for i := range o.labels {
		o.labels[i] = map[string]string{AppLabel: "app-" + strconv.Itoa(i)}
	}
	for k := range o.names {
		o.names[k] = namePrefix + strconv.Itoa(k)
		o.keys[k] = o.namespaces[k%cfg.Namespaces] + "/" + o.names[k]
	}
	o.payload = strings.Repeat("x", cfg.Payload)
	return o
}

// Key returns key k's "namespace/name" (cache.MetaNamespaceKeyFunc's form).
func (o *Objects) Key(k int) string { return o.keys[k] }

// Namespace returns key k's namespace.
func (o *Objects) Namespace(k int) string { return o.namespaces[k%len(o.namespaces)] }

// Build returns a fresh Pod for key k at resourceVersion rv.
func (o *Objects) Build(k int, rv uint64) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       o.Namespace(k),
			Name:            o.names[k],
			ResourceVersion: strconv.FormatUint(rv, 10),
			Labels:          o.labels[k%len(o.labels)],
			Annotations:     map[string]string{PayloadAnnotation: strings.Clone(o.payload)},
		},
	}
}

// KeyIndex parses the key index out of a generated object's name or
// "namespace/name" key.
func KeyIndex(nameOrKey string) (int, bool) {
	i := strings.LastIndex(nameOrKey, namePrefix)
	if i < 0 {
		return 0, false
	}
	k, err := strconv.Atoi(nameOrKey[i+len(namePrefix):])
	return k, err == nil && k >= 0
}

// RV parses a generated object's resourceVersion.
func RV(obj metav1.Object) (uint64, bool) {
	rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	return rv, err == nil
}

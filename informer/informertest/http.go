package informertest

import (
	"encoding/json"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// ServeHTTP serves s as the pods resource of a Kubernetes API server —
// list and watch of GET /api/v1/pods and /api/v1/namespaces/{ns}/pods, in
// JSON — so that clients built from a rest.Config, controller-runtime's
// cache among them, can run offline against httptest.NewServer(s). It
// declines the watch-list protocol (sendInitialEvents) with 400, after
// which a Reflector lists and watches.
func (s *Source) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	namespace, ok := podsNamespace(r.URL.Path)
	if !ok || r.Method != http.MethodGet {
		writeStatus(w, apierrors.NewNotFound(corev1.Resource("pods"), r.URL.Path))
		return
	}
	q := r.URL.Query()
	if q.Get("sendInitialEvents") == "true" {
		writeStatus(w, apierrors.NewBadRequest("queuelab source: watch-list is not supported"))
		return
	}
	opts := metav1.ListOptions{ResourceVersion: q.Get("resourceVersion")}
	if q.Get("watch") != "true" && q.Get("watch") != "1" {
		obj, err := s.list(r.Context(), opts)
		if err != nil {
			writeStatus(w, apierrors.NewInternalError(err))
			return
		}
		l := obj.(*corev1.PodList)
		l.Kind, l.APIVersion = "PodList", "v1"
		l.Items = inNamespace(l.Items, namespace)
		writeJSON(w, http.StatusOK, l)
		return
	}
	wi, err := s.watch(r.Context(), opts)
	if err != nil {
		writeStatus(w, err)
		return
	}
	defer wi.Stop()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return
			}
			switch o := ev.Object.(type) {
			case *corev1.Pod:
				if namespace != "" && o.Namespace != namespace {
					continue
				}
				o = o.DeepCopy()
				o.Kind, o.APIVersion = "Pod", "v1"
				ev.Object = o
			case *metav1.Status:
				o = o.DeepCopy()
				o.Kind, o.APIVersion = "Status", "v1"
				ev.Object = o
			}
			if err := enc.Encode(metav1.WatchEvent{Type: string(ev.Type), Object: runtime.RawExtension{Object: ev.Object}}); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
			if ev.Type == watch.Error {
				return
			}
		}
	}
}

// podsNamespace parses a pods collection path: "" for all namespaces.
func podsNamespace(path string) (string, bool) {
	if path == "/api/v1/pods" {
		return "", true
	}
	ns, ok := strings.CutPrefix(path, "/api/v1/namespaces/")
	if !ok {
		return "", false
	}
	ns, ok = strings.CutSuffix(ns, "/pods")
	return ns, ok && ns != "" && !strings.Contains(ns, "/")
}

func inNamespace(pods []corev1.Pod, namespace string) []corev1.Pod {
	if namespace == "" {
		return pods
	}
	out := pods[:0]
	for _, p := range pods {
		if p.Namespace == namespace {
			out = append(out, p)
		}
	}
	return out
}

func writeStatus(w http.ResponseWriter, err error) {
	status := apierrors.NewInternalError(err).Status()
	if se, ok := err.(apierrors.APIStatus); ok {
		status = se.Status()
	}
	status.Kind, status.APIVersion = "Status", "v1"
	writeJSON(w, int(status.Code), &status)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

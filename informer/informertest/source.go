package informertest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Source is an in-memory API server for pods, offline: what an informer
// lists and watches in the suite. Every change gets the next resource
// version and is appended to a log that every open watch replays in order
// from the version it was opened at, so no event is missed or doubled
// whatever the timing. Expire ends the open watches with 410 Gone, which
// makes a Reflector list again; Forget changes the state without an event,
// as a change made while a watch was down.
type Source struct {
	mu       sync.Mutex
	cond     sync.Cond
	rv       int
	pods     map[string]*corev1.Pod
	log      []watch.Event
	logRV    []int // the resource version of each log entry
	watches  map[*sourceWatch]struct{}
	listErrs []error
	// expiredRV: watches from an older version are refused with 410 Gone,
	// as a server refuses versions it has compacted away, so one opened
	// after Expire from a list taken before it cannot miss what Put and
	// Forget changed in between.
	expiredRV int
}

// NewSource returns a Source holding copies of pods, which get resource
// versions 1, 2, ...
func NewSource(pods ...*corev1.Pod) *Source {
	s := &Source{pods: make(map[string]*corev1.Pod), watches: make(map[*sourceWatch]struct{})}
	s.cond.L = &s.mu
	for _, p := range pods {
		s.Create(p)
	}
	return s
}

// Pod returns a pod with the given namespace, name and label app=value.
func Pod(namespace, name, app string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": app}}}
}

// ListerWatcher returns s as a cache.ListerWatcher that declares it does
// not speak the watch-list protocol, so a Reflector lists then watches
// (with the WatchListClient gate on, it would otherwise wait for an
// initial-events bookmark).
func (s *Source) ListerWatcher() cache.ListerWatcher {
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc:  s.list,
		WatchFuncWithContext: s.watch,
	}, noWatchList{})
}

type noWatchList struct{}

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// Create stores a copy of p at the next resource version, tells the
// watches, and returns the copy.
func (s *Source) Create(p *corev1.Pod) *corev1.Pod { return s.put(watch.Added, p) }

// Update is Create for a pod already stored.
func (s *Source) Update(p *corev1.Pod) *corev1.Pod { return s.put(watch.Modified, p) }

func (s *Source) put(typ watch.EventType, p *corev1.Pod) *corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.stamp(p)
	s.pods[key(c)] = c
	s.append(typ, c)
	return c
}

// Delete removes the pod namespace/name and tells the watches, with the
// final state at a new resource version.
func (s *Source) Delete(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := namespace + "/" + name
	p, ok := s.pods[k]
	if !ok {
		return
	}
	delete(s.pods, k)
	s.append(watch.Deleted, s.stamp(p))
}

// Send appends a raw event (a malformed object, say) to the watches'
// log without changing the stored state.
func (s *Source) Send(typ watch.EventType, obj runtime.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	s.append(typ, obj)
}

// Put stores a copy of p at the next resource version without telling
// the watches, as a change made while they were down: only a relist can
// reveal it. It returns the copy.
func (s *Source) Put(p *corev1.Pod) *corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.stamp(p)
	s.pods[key(c)] = c
	return c
}

// Forget deletes namespace/name without telling the watches: only a
// relist can reveal it.
func (s *Source) Forget(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pods, namespace+"/"+name)
	s.rv++
}

// Expire ends every open watch with 410 Gone once it has delivered what
// was logged before, and refuses new watches from older versions, so the
// Reflector lists again.
func (s *Source) Expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expiredRV = s.rv
	for w := range s.watches {
		if w.expireAt < 0 { // an earlier expiry stands: the watch missed what followed it
			w.expireAt = len(s.log)
		}
	}
	s.cond.Broadcast()
}

// FailLists makes the next lists fail with errs, one each.
func (s *Source) FailLists(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listErrs = append(s.listErrs, errs...)
}

// Has reports whether namespace/name is stored.
func (s *Source) Has(namespace, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pods[namespace+"/"+name]
	return ok
}

// Pods returns copies of the stored pods keyed by namespace/name.
func (s *Source) Pods() map[string]*corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]*corev1.Pod, len(s.pods))
	for k, p := range s.pods {
		out[k] = p.DeepCopy()
	}
	return out
}

// ResourceVersion is the current resource version.
func (s *Source) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strconv.Itoa(s.rv)
}

// stamp returns a copy of p at the next resource version.
func (s *Source) stamp(p *corev1.Pod) *corev1.Pod {
	s.rv++
	c := p.DeepCopy()
	c.ResourceVersion = strconv.Itoa(s.rv)
	return c
}

func (s *Source) append(typ watch.EventType, obj runtime.Object) {
	s.log = append(s.log, watch.Event{Type: typ, Object: obj})
	s.logRV = append(s.logRV, s.rv)
	s.cond.Broadcast()
}

func key(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func (s *Source) list(_ context.Context, _ metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.listErrs) > 0 {
		err := s.listErrs[0]
		s.listErrs = s.listErrs[1:]
		return nil, err
	}
	l := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}}
	for _, p := range s.pods {
		l.Items = append(l.Items, *p.DeepCopy())
	}
	return l, nil
}

func (s *Source) watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	from := 0
	if opts.ResourceVersion != "" {
		v, err := strconv.Atoi(opts.ResourceVersion)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("resource version %q: %v", opts.ResourceVersion, err))
		}
		from = v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if from < s.expiredRV {
		return nil, errExpired
	}
	w := &sourceWatch{s: s, ch: make(chan watch.Event), stop: make(chan struct{}), expireAt: -1}
	for w.next < len(s.logRV) && s.logRV[w.next] <= from {
		w.next++
	}
	s.watches[w] = struct{}{}
	go w.pump()
	return w, nil
}

// sourceWatch is one open watch: a goroutine hands the log to the
// Reflector from next on, until Stop or expiry.
type sourceWatch struct {
	s        *Source
	ch       chan watch.Event
	stop     chan struct{}
	once     sync.Once
	next     int // under s.mu
	expireAt int // under s.mu; -1 while not expired
	stopped  bool
}

func (w *sourceWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.s.mu.Lock()
		w.stopped = true
		w.s.cond.Broadcast()
		w.s.mu.Unlock()
	})
}

func (w *sourceWatch) ResultChan() <-chan watch.Event { return w.ch }

var errExpired = apierrors.NewResourceExpired("queuelab source: watch expired")

func (w *sourceWatch) pump() {
	defer close(w.ch)
	defer func() {
		w.s.mu.Lock()
		delete(w.s.watches, w)
		w.s.mu.Unlock()
	}()
	for {
		w.s.mu.Lock()
		for !w.stopped && w.next >= len(w.s.log) && w.expireAt < 0 {
			w.s.cond.Wait()
		}
		if w.stopped {
			w.s.mu.Unlock()
			return
		}
		var ev watch.Event
		expired := w.expireAt >= 0 && w.next >= w.expireAt
		if expired {
			ev = watch.Event{Type: watch.Error, Object: &errExpired.ErrStatus}
		} else {
			ev = w.s.log[w.next]
			w.next++
		}
		w.s.mu.Unlock()
		select {
		case w.ch <- ev:
		case <-w.stop:
			return
		}
		if expired {
			<-w.stop
			return
		}
	}
}

// ErrListFailed is what FailLists callers may pass for a generic failure.
var ErrListFailed = errors.New("queuelab source: list failed")

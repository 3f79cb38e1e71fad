package watchsrc

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/queuelab/queuelab/loadgen/gen"
)

// watcher is one watch connection: a goroutine replaying the stream from
// pos into ch.
type watcher struct {
	src      *Source
	ch       chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	ctx      context.Context
	pos      int
	// sentOK: at least one event went out, so a disconnect now is not a
	// "very short watch" (which the Reflector answers with a relist).
	sentOK bool
}

// ResultChan implements watch.Interface.
func (w *watcher) ResultChan() <-chan watch.Event { return w.ch }

// Stop implements watch.Interface. It waits for the emitting goroutine to
// exit, so the replay state is quiescent when the Reflector lists or
// watches again.
func (w *watcher) Stop() {
	w.stopOnce.Do(func() { close(w.stop) })
	<-w.done
}

func (w *watcher) run() {
	defer close(w.done)
	defer w.src.release(w)
	defer close(w.ch)
	select {
	case <-w.src.gate:
	case <-w.stop:
		return
	case <-w.ctx.Done():
		return
	}
	s := w.src
	events := s.stream.Events
	for ; w.pos < len(events); w.pos++ {
		e := events[w.pos]
		if w.pos < s.next {
			// Already took effect; an object event the Reflector did not
			// get (it never happens with a draining Reflector, but resuming
			// must be exact) is delivered again.
			if e.Kind.IsObject() && !e.Missed && !w.send(s.objectEvent(e)) {
				return
			}
			continue
		}
		if e.Kind.IsObject() && w.fault(w.pos) {
			return
		}
		s.next = w.pos + 1
		switch e.Kind {
		case gen.Resync:
			s.resyncs.Add(1)
			if s.OnResync != nil {
				s.OnResync()
			}
		case gen.Disconnect:
			if w.sentOK {
				s.disconnects.Add(1)
				return
			}
		case gen.Relist:
			s.relists.Add(1)
			s.backOff()
			w.sendError(apierrors.NewResourceExpired("queuelab: relist"))
			return
		default:
			at, ok := s.pacer.Wait(s.objIdx, w.stop)
			s.objIdx++
			if !ok {
				s.next = w.pos // not taken effect after all
				s.objIdx--
				return
			}
			ev := s.take(e)
			if e.Missed {
				continue
			}
			if s.OnEmit != nil {
				s.OnEmit(int(e.Key), e.RV, s.startAt+at)
			}
			s.led.Emit(int(e.Key), e.RV, e.Kind == gen.Deleted, s.startAt+at)
			if !w.send(ev) {
				return
			}
		}
	}
	if !s.ended {
		s.ended = true
		s.exhaustedAt.Store(s.now())
		close(s.exhausted)
	}
	select {
	case <-w.stop:
	case <-w.ctx.Done():
	}
}

// take applies object event e to the replay state and returns the watch
// event delivering it.
func (s *Source) take(e gen.Event) watch.Event {
	k := int(e.Key)
	obj := s.objs.Build(k, e.RV)
	if e.Kind == gen.Deleted {
		s.cur[k] = nil
		if !e.Missed {
			s.view[k] = false
		}
	} else {
		s.cur[k] = obj
		s.view[k] = true
	}
	return watch.Event{Type: watchType[e.Kind], Object: obj}
}

// objectEvent rebuilds the watch event of an object event that already
// took effect.
func (s *Source) objectEvent(e gen.Event) watch.Event {
	return watch.Event{Type: watchType[e.Kind], Object: s.objs.Build(int(e.Key), e.RV)}
}

var watchType = [...]watch.EventType{gen.Added: watch.Added, gen.Modified: watch.Modified, gen.Deleted: watch.Deleted}

// sendError ends the watch as an API server reports an error: a watch
// event of type Error carrying err's Status.
func (w *watcher) sendError(err *apierrors.StatusError) {
	status := err.ErrStatus
	w.send(watch.Event{Type: watch.Error, Object: &status})
}

// send delivers ev; it returns false if the watch was stopped.
func (w *watcher) send(ev watch.Event) bool {
	select {
	case w.ch <- ev:
		w.sentOK = true
		return true
	case <-w.stop:
		return false
	case <-w.ctx.Done():
		return false
	}
}

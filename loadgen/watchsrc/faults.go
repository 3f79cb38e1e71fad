package watchsrc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/queuelab/queuelab/loadgen/gen"
)

// Fault is a failure the source injects into the watch protocol, each one
// a way an API server (or the network in front of it) lets a Reflector
// down. Faults are not stream positions: they change how the stream is
// delivered, never what it contains, so a run with faults must end with
// the same store and the same books as one without.
type Fault uint8

const (
	// FaultClose closes the watch channel mid-stream without an error, as
	// a load balancer or an API server shutting a connection down does.
	// The Reflector re-watches at once from the last resourceVersion it
	// saw; nothing is listed, lost or delivered twice.
	FaultClose Fault = iota
	// FaultGone ends the watch with a "410 Gone" (Expired) error event,
	// the answer of an API server whose watch cache no longer holds the
	// resourceVersion. The Reflector waits out its backoff and relists;
	// deletes it missed come back as tombstones.
	FaultGone
	// FaultRefused closes the watch and fails the next Watch call with
	// "429 Too Many Requests", what an overloaded API server (or its
	// priority and fairness) answers. The Reflector backs off and watches
	// again from the same resourceVersion, without relisting.
	FaultRefused
	// FaultInternal ends the watch with a "500 Internal Error" event.
	// client-go's Reflector retries those only within
	// MaxInternalErrorRetryDuration (0 in informers), so it logs a warning,
	// waits out its backoff and relists.
	FaultInternal
)

var faultNames = [...]string{"close", "gone", "refused", "internal"}

func (f Fault) String() string {
	if int(f) < len(faultNames) {
		return faultNames[f]
	}
	return fmt.Sprintf("fault(%d)", int(f))
}

// Faults is a run's fault schedule: how many faults of each kind to inject
// at positions drawn from the stream's seed among its object events. The
// same Faults over the same stream injects the same faults before the same
// events, whatever the timing, so a failing run can be replayed.
//
// Every fault but FaultClose makes the Reflector wait out its backoff:
// client-go's informers start at 0.8 s and double up to 30 s (jittered up
// to twice that) while failures come within two minutes, for watch errors
// and relists alike, so a few of them per run are what a run of a minute
// affords. The source pauses the schedule over those waits and leaves them
// out of the measured time (Stats.Paused).
type Faults struct {
	Close, Gone, Refused, Internal int
}

// Total is the number of faults scheduled.
func (f Faults) Total() int { return f.Close + f.Gone + f.Refused + f.Internal }

// Validate rejects negative counts, naming the flag.
func (f Faults) Validate() error {
	for i, n := range []int{f.Close, f.Gone, f.Refused, f.Internal} {
		if n < 0 {
			return gen.Fieldf("faults", "%s: want >= 0, got %d", Fault(i), n)
		}
	}
	return nil
}

// scheduled is one fault due before the object event at stream position
// pos.
type scheduled struct {
	pos   int
	fault Fault
}

// plan draws f's positions over s's object events, the first excluded (a
// watch closed before it delivered anything is a "very short watch" to the
// Reflector, which relists). Positions are distinct and sorted; faults
// beyond the number of eligible events are dropped.
func (f Faults) plan(s *gen.Stream) []scheduled {
	if f.Total() == 0 {
		return nil
	}
	var eligible []int
	for i, e := range s.Events {
		if e.Kind.IsObject() && !e.Missed {
			eligible = append(eligible, i)
		}
	}
	if len(eligible) > 0 {
		eligible = eligible[1:]
	}
	rng := rand.New(rand.NewPCG(s.Config.Seed, 0xfa017))
	rng.Shuffle(len(eligible), func(i, j int) { eligible[i], eligible[j] = eligible[j], eligible[i] })
	var out []scheduled
	for kind, n := range []int{f.Close, f.Gone, f.Refused, f.Internal} {
		for range n {
			if len(eligible) == 0 {
				break
			}
			out = append(out, scheduled{pos: eligible[0], fault: Fault(kind)})
			eligible = eligible[1:]
		}
	}
	slices.SortFunc(out, func(a, b scheduled) int { return a.pos - b.pos })
	return out
}

// Inject schedules f's faults. Call it before the Reflector first lists.
func (s *Source) Inject(f Faults) error {
	if err := f.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lists.Load() > 0 {
		return fmt.Errorf("watchsrc: faults must be injected before the first List")
	}
	s.faults, s.nextFault = f.plan(s.stream), 0
	return nil
}

// fault fires the fault due at or before position pos, if any; true means
// the watch ends here, before the event at pos takes effect. A close
// waits for the watch to have delivered an event (see plan).
func (w *watcher) fault(pos int) (ended bool) {
	s := w.src
	if s.nextFault >= len(s.faults) || s.faults[s.nextFault].pos > pos || !w.sentOK {
		return false
	}
	f := s.faults[s.nextFault].fault
	s.nextFault++
	s.injected.Add(1)
	switch f {
	case FaultClose:
		s.disconnects.Add(1)
	case FaultGone:
		s.relists.Add(1)
		s.backOff()
		w.sendError(apierrors.NewResourceExpired("queuelab: injected 410 Gone"))
	case FaultRefused:
		s.refuse = true
	case FaultInternal:
		s.internal.Add(1)
		s.backOff()
		w.sendError(apierrors.NewInternalError(errors.New("queuelab: injected internal error")))
	}
	return true
}

// Package gen generates queuelab's synthetic watch-event streams: a seeded,
// deterministic sequence of add, update and delete events over a population
// of Kubernetes Pods, interleaved with relists, resyncs and watch
// disconnects, plus the truth (the final state) the stream leads to.
//
// Events are compact descriptors generated up front, so the digest and the
// truth are known before a run starts and replaying a stream costs no random
// numbers; the *corev1.Pod each event carries is built when it is emitted
// (Objects.Build), as a watch decoder would, so a run's memory holds only the
// objects the pipeline under test retains.
package gen

import (
	"fmt"
	"math"
	"time"
)

// Config describes a stream. Field names match the `queuelab run` flags
// they come from; Validate names the field (flag) that is wrong.
type Config struct {
	// Seed makes the stream reproducible: the same Config yields the same
	// events and the same Digest.
	Seed uint64
	// Objects is the initial population (the first List) and the size of
	// the key space the popularity distribution ranges over.
	Objects int
	// Namespaces spreads objects over "ns-<i mod Namespaces>".
	Namespaces int
	// Labels is the cardinality of the "app" label ("app-<i mod Labels>").
	Labels int
	// Payload is the size in bytes of each object's payload annotation.
	Payload int
	// Events is the number of watch events (adds, updates and deletes,
	// missed deletes included) after the initial List.
	Events int
	// Add, Update and Delete are the event mix; they must sum to 1.
	Add, Update, Delete float64
	// Zipf is the exponent of the key popularity distribution (> 1);
	// 0 means uniform.
	Zipf float64
	// SimRate is the rate of the modelled cluster in events per second of
	// simulated time: it converts the periods below into event counts, so a
	// stream's shape does not depend on how fast a machine replays it.
	SimRate float64
	// RelistEvery is the simulated period of relists (the watch expires and
	// the Reflector lists again); 0 disables relists.
	RelistEvery time.Duration
	// Missed is the fraction of deletes the watch misses; each one becomes a
	// DeletedFinalStateUnknown tombstone at the next relist (unless the key
	// is re-created first). Needs relists; deletes after the last relist are
	// never missed, so every run can end consistent.
	Missed float64
	// ResyncEvery is the simulated period of the informer's periodic resync;
	// 0 disables it.
	ResyncEvery time.Duration
	// DisconnectEvery is the simulated period of clean watch disconnects
	// (the Reflector re-watches from its last resourceVersion); 0 disables.
	DisconnectEvery time.Duration
}

// Defaults resembles a busy production controller's informer: 50k objects
// in 500 namespaces, Zipf 1.1 popularity, 5% deletes, a relist every 30 s of
// simulated time at 1000 events/s.
func Defaults() Config {
	return Config{
		Seed:        1,
		Objects:     50_000,
		Namespaces:  500,
		Labels:      1000,
		Payload:     256,
		Events:      200_000,
		Add:         0.05,
		Update:      0.90,
		Delete:      0.05,
		Zipf:        1.1,
		SimRate:     1000,
		RelistEvery: 30 * time.Second,
		Missed:      0.1,
	}
}

// FieldError reports an invalid Config field by its flag name.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return fmt.Sprintf("--%s: %s", e.Field, e.Msg) }

// MaxObjects bounds the key space: keys are uint32 and per-key state is
// allocated up front, so an absurd value fails fast instead of exhausting
// memory.
const MaxObjects = 10_000_000

// Fieldf returns a *FieldError for field with a formatted message.
func Fieldf(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks the Config and returns a *FieldError naming the first
// offending field.
func (c Config) Validate() error {
	switch {
	case c.Objects <= 0 || c.Objects > MaxObjects:
		return Fieldf("objects", "must be in [1, %d], got %d", MaxObjects, c.Objects)
	case c.Namespaces <= 0:
		return Fieldf("namespaces", "must be > 0, got %d", c.Namespaces)
	case c.Labels <= 0:
		return Fieldf("labels", "must be > 0, got %d", c.Labels)
	case c.Payload < 0:
		return Fieldf("payload", "must be >= 0, got %d", c.Payload)
	case c.Events < 0 || c.Events > 100*MaxObjects:
		return Fieldf("events", "must be in [0, %d], got %d", 100*MaxObjects, c.Events)
	case c.Add < 0 || c.Update < 0 || c.Delete < 0:
		return Fieldf("mix", "ratios must be >= 0, got add=%g update=%g delete=%g", c.Add, c.Update, c.Delete)
	case math.Abs(c.Add+c.Update+c.Delete-1) > 1e-9:
		return Fieldf("mix", "add+update+delete must sum to 1, got %g", c.Add+c.Update+c.Delete)
	case c.Zipf != 0 && !(c.Zipf > 1):
		return Fieldf("zipf", "exponent must be > 1 (or 0 for uniform), got %g", c.Zipf)
	case !(c.SimRate > 0):
		return Fieldf("sim-rate", "must be > 0 events/s, got %g", c.SimRate)
	case c.RelistEvery < 0:
		return Fieldf("relist-every", "must be >= 0, got %v", c.RelistEvery)
	case c.Missed < 0 || c.Missed > 1:
		return Fieldf("missed", "must be in [0, 1], got %g", c.Missed)
	case c.Missed > 0 && c.RelistEvery == 0:
		return Fieldf("missed", "missed deletes only resolve at a relist: set --relist-every")
	case c.ResyncEvery < 0:
		return Fieldf("resync-every", "must be >= 0, got %v", c.ResyncEvery)
	case c.DisconnectEvery < 0:
		return Fieldf("disconnect-every", "must be >= 0, got %v", c.DisconnectEvery)
	}
	return nil
}

// period converts a simulated duration into a number of events (0: off).
func (c Config) period(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return max(1, int(d.Seconds()*c.SimRate))
}

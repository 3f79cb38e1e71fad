package gen

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func small() Config {
	c := Defaults()
	c.Objects, c.Namespaces, c.Labels, c.Events = 2000, 20, 10, 20_000
	c.RelistEvery = 5 * time.Second
	c.ResyncEvery = 7 * time.Second
	c.DisconnectEvery = 3 * time.Second
	return c
}

func TestSameSeedSameStream(t *testing.T) {
	a, err := Generate(small())
	require.NoError(t, err)
	b, err := Generate(small())
	require.NoError(t, err)
	assert.Equal(t, a.Digest, b.Digest)
	assert.Equal(t, a.Events, b.Events)
	assert.Equal(t, a.Stats, b.Stats)

	other := small()
	other.Seed = 2
	c, err := Generate(other)
	require.NoError(t, err)
	assert.NotEqual(t, a.Digest, c.Digest, "a different seed must give a different stream")
}

func TestStreamShape(t *testing.T) {
	cfg := small()
	s, err := Generate(cfg)
	require.NoError(t, err)
	st := s.Stats
	assert.Equal(t, cfg.Events, st.Adds+st.Updates+st.Deletes)
	// 20k events at 1000/s = 20 s simulated: markers every 5, 7 and 3 s.
	assert.Equal(t, 3, st.Relists)
	assert.Equal(t, 2, st.Resyncs)
	assert.Equal(t, 6, st.Disconnects)
	assert.Len(t, s.Events, cfg.Events+st.Relists+st.Resyncs+st.Disconnects)
	// The mix within 1% absolute of what was asked.
	assert.InDelta(t, cfg.Delete, float64(st.Deletes)/float64(cfg.Events), 0.01)
	assert.InDelta(t, cfg.Add, float64(st.Adds)/float64(cfg.Events), 0.01)

	var last uint64 = s.InitialRV
	for i, e := range s.Events {
		if e.Kind.IsObject() {
			require.Greater(t, e.RV, last, "position %d: resourceVersions must increase", i)
		} else {
			require.Equal(t, last, e.RV, "position %d: a marker carries the preceding resourceVersion", i)
		}
		last = e.RV
	}
}

// replayTruth recomputes the final state and the tombstones from the events
// alone, independently of the generator's bookkeeping.
func replayTruth(s *Stream) (final map[uint32]uint64, tombstones int) {
	final = make(map[uint32]uint64)
	seen := make(map[uint32]bool) // the consumer's view
	for k := range s.Config.Objects {
		final[uint32(k)] = uint64(k + 1)
		seen[uint32(k)] = true
	}
	for _, e := range s.Events {
		switch e.Kind {
		case Added, Modified:
			final[e.Key] = e.RV
			seen[e.Key] = true
		case Deleted:
			delete(final, e.Key)
			if !e.Missed {
				delete(seen, e.Key)
			}
		case Relist:
			for k := range seen {
				if _, ok := final[k]; !ok {
					tombstones++
					delete(seen, k)
				}
			}
		}
	}
	return final, tombstones
}

func TestTruthAndTombstones(t *testing.T) {
	for _, missed := range []float64{0, 0.3, 1} {
		cfg := small()
		cfg.Missed = missed
		cfg.Add, cfg.Update, cfg.Delete = 0.1, 0.7, 0.2
		s, err := Generate(cfg)
		require.NoError(t, err)
		final, tombstones := replayTruth(s)
		assert.Equal(t, tombstones, s.Stats.Tombstones, "missed=%g", missed)
		assert.Len(t, final, s.Stats.FinalObjects)
		for k := range s.Universe() {
			rv, ok := s.Final(k)
			want, wantOK := final[uint32(k)]
			require.Equal(t, wantOK, ok, "key %d", k)
			require.Equal(t, want, rv, "key %d", k)
		}
		switch missed {
		case 0:
			assert.Zero(t, s.Stats.MissedDeletes)
			assert.Zero(t, s.Stats.Tombstones)
		case 1:
			assert.Positive(t, s.Stats.Tombstones)
			assert.LessOrEqual(t, s.Stats.Tombstones, s.Stats.MissedDeletes)
		}
		// No missed delete after the last relist: the run can end consistent.
		lastRelist := 0
		for i, e := range s.Events {
			if e.Kind == Relist {
				lastRelist = i
			}
		}
		for _, e := range s.Events[lastRelist:] {
			require.False(t, e.Missed)
		}
	}
}

// chiSquare compares observed counts of the first bins keys (plus one tail
// bin) with the expected probabilities p.
func chiSquare(counts []int, p []float64, n int) float64 {
	var chi, tailObs, tailExp float64
	for i := range counts {
		exp := p[i] * float64(n)
		if i < 30 {
			chi += (float64(counts[i]) - exp) * (float64(counts[i]) - exp) / exp
		} else {
			tailObs += float64(counts[i])
			tailExp += exp
		}
	}
	return chi + (tailObs-tailExp)*(tailObs-tailExp)/tailExp
}

func TestPopularityDistribution(t *testing.T) {
	for _, zipf := range []float64{0, 1.1, 1.5} {
		cfg := small()
		cfg.Objects, cfg.Events = 200, 100_000
		cfg.Add, cfg.Update, cfg.Delete = 0, 1, 0
		cfg.Zipf = zipf
		cfg.RelistEvery, cfg.Missed, cfg.ResyncEvery, cfg.DisconnectEvery = 0, 0, 0, 0
		s, err := Generate(cfg)
		require.NoError(t, err)
		counts, p := keyCounts(s), zipfPMF(cfg.Objects, zipf)
		// 30 bins + tail = 30 degrees of freedom: the 99.9th percentile of
		// chi-square(30) is about 59.7. The stream is seeded, so this
		// cannot flake; the bound only has to reject a wrong shape.
		chi := chiSquare(counts, p, cfg.Events)
		assert.Less(t, chi, 60.0, "zipf=%g: chi-square %.1f", zipf, chi)
	}
	// And a wrong shape is rejected: a uniform stream is not Zipf 1.1.
	cfg := small()
	cfg.Objects, cfg.Events = 200, 100_000
	cfg.Add, cfg.Update, cfg.Delete = 0, 1, 0
	cfg.Zipf, cfg.RelistEvery, cfg.Missed = 0, 0, 0
	s, err := Generate(cfg)
	require.NoError(t, err)
	assert.Greater(t, chiSquare(keyCounts(s), zipfPMF(cfg.Objects, 1.1), cfg.Events), 1000.0)
}

func keyCounts(s *Stream) []int {
	counts := make([]int, s.Config.Objects)
	for _, e := range s.Events {
		counts[e.Key]++
	}
	return counts
}

// zipfPMF is rand.Zipf's distribution with v=1 over n keys (uniform for
// exponent 0).
func zipfPMF(n int, exponent float64) []float64 {
	p := make([]float64, n)
	var sum float64
	for k := range p {
		p[k] = 1
		if exponent > 0 {
			p[k] = math.Pow(1+float64(k), -exponent)
		}
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

func TestValidateNamesTheFlag(t *testing.T) {
	cases := map[string]func(*Config){
		"objects":      func(c *Config) { c.Objects = 0 },
		"mix":          func(c *Config) { c.Add, c.Update, c.Delete = 0.5, 0.5, 0.5 },
		"zipf":         func(c *Config) { c.Zipf = 0.5 },
		"missed":       func(c *Config) { c.RelistEvery = 0 },
		"sim-rate":     func(c *Config) { c.SimRate = 0 },
		"namespaces":   func(c *Config) { c.Namespaces = -1 },
		"relist-every": func(c *Config) { c.RelistEvery = -time.Second },
	}
	for field, mutate := range cases {
		cfg := Defaults()
		mutate(&cfg)
		_, err := Generate(cfg)
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%s: got %v", field, err)
		assert.Equal(t, field, fe.Field)
		assert.Contains(t, err.Error(), "--"+field)
	}
}

func TestObjects(t *testing.T) {
	s, err := Generate(small())
	require.NoError(t, err)
	o := NewObjects(s)
	p := o.Build(42, 777)
	assert.Equal(t, "ns-2", p.Namespace)
	assert.Equal(t, "pod-42", p.Name)
	assert.Equal(t, "ns-2/pod-42", o.Key(42))
	assert.Equal(t, "777", p.ResourceVersion)
	assert.Len(t, p.Annotations[PayloadAnnotation], s.Config.Payload)
	for _, in := range []string{"pod-42", "ns-2/pod-42"} {
		k, ok := KeyIndex(in)
		assert.True(t, ok)
		assert.Equal(t, 42, k)
	}
	_, ok := KeyIndex("ns-2/other")
	assert.False(t, ok)
	rv, ok := RV(p)
	assert.True(t, ok)
	assert.EqualValues(t, 777, rv)
}

func TestScheduleDue(t *testing.T) {
	s := Schedule{Rate: 1000}
	assert.Equal(t, time.Duration(0), s.Due(0))
	assert.Equal(t, time.Second, s.Due(1000))
	b := Schedule{Rate: 1000, Burst: 100, BurstEvery: time.Second}
	require.NoError(t, b.Validate())
	assert.Equal(t, time.Duration(0), b.Due(99), "the burst arrives at the window start")
	assert.Greater(t, b.Due(100), time.Duration(0))
	assert.Less(t, b.Due(999), time.Second)
	assert.Equal(t, time.Second, b.Due(1000), "the next window starts on time")
	assert.Error(t, Schedule{Burst: 10}.Validate())
	assert.True(t, Schedule{}.Open())
}

package gen

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
)

// Kind is what a stream position does.
type Kind uint8

const (
	// Added creates an object (the key was absent).
	Added Kind = iota
	// Modified updates an existing object.
	Modified
	// Deleted removes an object.
	Deleted
	// Relist ends the watch with "410 Gone": the Reflector lists again and
	// replaces its queue's content.
	Relist
	// Resync asks the informer's queue to resync its known objects.
	Resync
	// Disconnect closes the watch cleanly; the Reflector re-watches from the
	// last resourceVersion it saw.
	Disconnect
)

var kindNames = [...]string{"added", "modified", "deleted", "relist", "resync", "disconnect"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// IsObject reports whether the position is an object event (it has a key
// and a resourceVersion of its own).
func (k Kind) IsObject() bool { return k <= Deleted }

// Event is one stream position: 16 bytes, so a million-event stream costs
// 16 MB of descriptors.
type Event struct {
	// RV is the resourceVersion after this position: an object event's own
	// (strictly increasing), a marker's is the preceding event's.
	RV uint64
	// Key indexes the object (Objects.Key); zero for markers.
	Key uint32
	// Kind is what happens.
	Kind Kind
	// Missed marks a delete the watch does not deliver; the next relist
	// reveals it.
	Missed bool
}

// Stats summarizes a stream; tests and reports compare them with what a run
// observed.
type Stats struct {
	Adds, Updates, Deletes, MissedDeletes int
	// Tombstones is the number of DeletedFinalStateUnknown deletions the
	// relists produce: keys whose delete was missed and that were not
	// re-created before the next relist.
	Tombstones                    int
	Relists, Resyncs, Disconnects int
	// FinalObjects is the number of objects that exist at the end.
	FinalObjects int
	// Universe is the number of distinct keys the stream uses.
	Universe int
}

// Stream is a generated event sequence and the truth it leads to.
type Stream struct {
	Config Config
	Events []Event
	Stats  Stats
	// Digest is the hex sha256 over the encoded events: equal digests mean
	// equal streams.
	Digest string
	// InitialRV is the resourceVersion of the initial List (keys
	// 0..Objects-1 exist, key i at resourceVersion i+1).
	InitialRV uint64
	// finalRV[k] is key k's resourceVersion at the end, 0 if absent.
	finalRV []uint64
}

// Universe is the number of keys the stream uses (Objects plus the keys
// created beyond the initial population).
func (s *Stream) Universe() int { return len(s.finalRV) }

// Final returns key k's resourceVersion at the end of the stream and
// whether the object exists then.
func (s *Stream) Final(k int) (rv uint64, exists bool) {
	rv = s.finalRV[k]
	return rv, rv != 0
}

// RVAt returns the resourceVersion before position i (InitialRV before
// the first event).
func (s *Stream) RVAt(i int) uint64 {
	if i <= 0 {
		return s.InitialRV
	}
	return s.Events[i-1].RV
}

// Generate builds the stream cfg describes. It is deterministic: the same
// cfg yields the same events and Digest.
func Generate(cfg Config) (*Stream, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := newGenerator(cfg)
	g.run()
	return g.stream(), nil
}

type generator struct {
	cfg     Config
	rng     *rand.Rand
	zipf    *rand.Zipf
	rv      uint64
	present []bool   // truth
	curRV   []uint64 // truth: resourceVersion of present keys
	view    []bool   // what the consumer was told: present per delivered events
	free    []uint32 // deleted keys, reused by adds (LIFO)
	missed  []uint32 // keys with a missed delete since the last relist
	events  []Event
	stats   Stats
}

func newGenerator(cfg Config) *generator {
	g := &generator{
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		present: make([]bool, cfg.Objects),
		curRV:   make([]uint64, cfg.Objects),
		view:    make([]bool, cfg.Objects),
		events:  make([]Event, 0, cfg.Events+cfg.Events/16+8),
	}
	if cfg.Zipf > 1 {
		g.zipf = rand.NewZipf(g.rng, cfg.Zipf, 1, uint64(cfg.Objects-1))
	}
	for k := range cfg.Objects {
		g.rv++
		g.present[k], g.view[k], g.curRV[k] = true, true, g.rv
	}
	return g
}

func (g *generator) run() {
	relist, resync, disconnect := g.cfg.period(g.cfg.RelistEvery), g.cfg.period(g.cfg.ResyncEvery), g.cfg.period(g.cfg.DisconnectEvery)
	// Deletes at or after the last relist are never missed, so the stream
	// ends with the consumer's view equal to the truth.
	lastRelist := 0
	if relist > 0 && g.cfg.Events > 0 {
		lastRelist = (g.cfg.Events - 1) / relist * relist
	}
	for i := range g.cfg.Events {
		if i > 0 {
			if resync > 0 && i%resync == 0 {
				g.marker(Resync)
			}
			if disconnect > 0 && i%disconnect == 0 {
				g.marker(Disconnect)
			}
			if relist > 0 && i%relist == 0 {
				g.relist()
			}
		}
		g.event(i < lastRelist)
	}
}

func (g *generator) marker(k Kind) {
	g.events = append(g.events, Event{RV: g.rv, Kind: k})
	switch k {
	case Resync:
		g.stats.Resyncs++
	case Disconnect:
		g.stats.Disconnects++
	}
}

// relist reconciles the consumer's view with the truth: every key whose
// delete was missed and that is still absent becomes a tombstone.
func (g *generator) relist() {
	g.marker(Relist)
	g.stats.Relists++
	for _, k := range g.missed {
		if g.view[k] && !g.present[k] {
			g.stats.Tombstones++
		}
		g.view[k] = g.present[k]
	}
	g.missed = g.missed[:0]
}

func (g *generator) event(mayMiss bool) {
	u := g.rng.Float64()
	kind := Added
	switch {
	case u < g.cfg.Add:
	case u < g.cfg.Add+g.cfg.Update:
		kind = Modified
	default:
		kind = Deleted
	}
	var k uint32
	if kind != Added {
		var ok bool
		if k, ok = g.pickPresent(); !ok {
			kind = Added
		}
	}
	if kind == Added {
		k = g.pickAbsent()
	}
	g.rv++
	e := Event{RV: g.rv, Key: k, Kind: kind}
	switch kind {
	case Added:
		g.stats.Adds++
		g.present[k], g.curRV[k], g.view[k] = true, g.rv, true
	case Modified:
		g.stats.Updates++
		g.curRV[k] = g.rv
	case Deleted:
		g.stats.Deletes++
		g.present[k], g.curRV[k] = false, 0
		g.free = append(g.free, k)
		if mayMiss && g.cfg.Missed > 0 && g.rng.Float64() < g.cfg.Missed {
			e.Missed = true
			g.stats.MissedDeletes++
			g.missed = append(g.missed, k)
		} else {
			g.view[k] = false
		}
	}
	g.events = append(g.events, e)
}

// sample draws a key index from the popularity distribution over the
// initial key space.
func (g *generator) sample() uint32 {
	if g.zipf != nil {
		return uint32(g.zipf.Uint64())
	}
	return uint32(g.rng.IntN(g.cfg.Objects))
}

// pickPresent draws an existing key by popularity, rejecting absent ones; a
// long run of rejections (almost everything deleted) falls back to a scan
// from the last draw so generation never stalls.
func (g *generator) pickPresent() (uint32, bool) {
	const tries = 32
	var k uint32
	for range tries {
		if k = g.sample(); g.present[k] {
			return k, true
		}
	}
	n := uint32(len(g.present))
	for i := range n {
		if j := (k + i) % n; g.present[j] {
			return j, true
		}
	}
	return 0, false
}

// pickAbsent returns the most recently deleted key, or a brand-new one.
func (g *generator) pickAbsent() uint32 {
	if n := len(g.free); n > 0 {
		k := g.free[n-1]
		g.free = g.free[:n-1]
		return k
	}
	k := uint32(len(g.present))
	g.present = append(g.present, false)
	g.curRV = append(g.curRV, 0)
	g.view = append(g.view, false)
	return k
}

func (g *generator) stream() *Stream {
	h := sha256.New()
	var buf [16]byte
	for _, e := range g.events {
		binary.LittleEndian.PutUint64(buf[0:8], e.RV)
		binary.LittleEndian.PutUint32(buf[8:12], e.Key)
		buf[12] = byte(e.Kind)
		buf[13] = 0
		if e.Missed {
			buf[13] = 1
		}
		h.Write(buf[:])
	}
	s := &Stream{
		Config:    g.cfg,
		Events:    g.events,
		Digest:    hex.EncodeToString(h.Sum(nil)),
		InitialRV: uint64(g.cfg.Objects),
		finalRV:   g.curRV,
	}
	g.stats.Universe = len(g.present)
	for _, p := range g.present {
		if p {
			g.stats.FinalObjects++
		}
	}
	s.Stats = g.stats
	return s
}

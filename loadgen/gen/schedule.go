package gen

import "time"

// Schedule is the offered load: when the i-th event of a stream is due,
// relative to the start of emission.
type Schedule struct {
	// Rate is the offered rate in events/s; 0 is open loop (as fast as the
	// pipeline takes them).
	Rate float64
	// Burst events arrive back to back at the start of every BurstEvery
	// window; the rest of the window's events are spread evenly, so bursts
	// reshape the load without changing its average rate.
	Burst      int
	BurstEvery time.Duration
}

// Validate names the flag of an impossible schedule.
func (s Schedule) Validate() error {
	switch {
	case s.Rate < 0:
		return Fieldf("rate", "must be >= 0 events/s (0 = open loop), got %g", s.Rate)
	case s.Burst < 0:
		return Fieldf("burst", "must be >= 0, got %d", s.Burst)
	case s.BurstEvery < 0:
		return Fieldf("burst-every", "must be >= 0, got %v", s.BurstEvery)
	case s.Burst > 0 && (s.Rate == 0 || s.BurstEvery == 0):
		return Fieldf("burst", "bursts shape a fixed offered load: set --rate and --burst-every")
	}
	return nil
}

// Open reports whether the load is open loop.
func (s Schedule) Open() bool { return s.Rate == 0 }

// Due returns when event i is due (0 for every event in open loop).
func (s Schedule) Due(i int) time.Duration {
	if s.Rate == 0 {
		return 0
	}
	if s.Burst == 0 || s.BurstEvery == 0 {
		return time.Duration(float64(i) / s.Rate * float64(time.Second))
	}
	window := max(1, int(s.BurstEvery.Seconds()*s.Rate))
	w, j := i/window, i%window
	start := time.Duration(w) * s.BurstEvery
	if j < s.Burst || window <= s.Burst {
		return start
	}
	spread := window - s.Burst
	return start + time.Duration(int64(j-s.Burst+1)*int64(s.BurstEvery)/int64(spread+1))
}

// Pacer releases events on a Schedule. It never sleeps less than a
// millisecond (timers are not finer than that): it releases everything
// already due, so the intended times it returns — not the moment of release
// — are what latency is measured from, and a slow consumer shows up as
// latency instead of silently lowering the offered load.
type Pacer struct {
	sched Schedule
	start time.Time
}

// NewPacer starts a schedule at start.
func NewPacer(sched Schedule, start time.Time) *Pacer { return &Pacer{sched: sched, start: start} }

// Pause moves every event not yet due d later, for a consumer that could
// not take events for d for a reason the schedule must not count as
// lateness. Not safe for use concurrently with Wait.
func (p *Pacer) Pause(d time.Duration) { p.start = p.start.Add(d) }

// Wait blocks until event i is due or stop is closed, and returns the
// emission time to stamp it with (ns since start); ok is false if stop won.
func (p *Pacer) Wait(i int, stop <-chan struct{}) (at int64, ok bool) {
	now := time.Since(p.start)
	if p.sched.Open() {
		return int64(now), true
	}
	due := p.sched.Due(i)
	if ahead := due - now; ahead >= time.Millisecond {
		t := time.NewTimer(ahead)
		select {
		case <-t.C:
		case <-stop:
			t.Stop()
			return 0, false
		}
	}
	return int64(due), true
}

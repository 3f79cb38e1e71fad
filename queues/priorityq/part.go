package priorityq

import (
	"sync"
	"time"
)

// part is an engine with its lock and its delay timer: the whole of a Mutex
// queue, one shard of a Sharded one. The timer is armed for the earliest
// waiting item only, and re-armed whenever that changes, so delayed items
// cost no goroutine and no ticking.
type part[T comparable] struct {
	mu     sync.Mutex
	e      engine[T]
	timer  *time.Timer // nil until the first delayed item
	closed bool
	// readied is called under mu when n items became eligible for Get
	// (n > 0) or, with n == 0, when anything the owner publishes may have
	// changed.
	readied func(n int)
}

// add queues item under mu with o's priority and delay, and re-arms the
// timer if the earliest ready time moved. It reports whether the item became
// eligible for Get; the caller has checked closed.
func (p *part[T]) add(s *settings[T], o AddOpts, item T) (eligible bool) {
	eligible, rearm := p.e.add(item, priority(o), s.delay(o, item))
	if rearm {
		p.arm()
	}
	return eligible
}

// arm points the timer at the earliest waiting item, or stops it.
func (p *part[T]) arm() {
	d, ok := p.e.nextDue()
	switch {
	case !ok:
		if p.timer != nil {
			p.timer.Stop()
		}
	case p.timer == nil:
		p.timer = time.AfterFunc(d, p.fire)
	default:
		p.timer.Reset(d)
	}
}

// fire moves the due items to their ready lists.
func (p *part[T]) fire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	n := p.e.advance()
	p.arm()
	p.readied(n)
}

// close drops the waiting items and stops the timer, under mu.
func (p *part[T]) close() {
	p.closed = true
	p.e.dropWaiting()
	if p.timer != nil {
		p.timer.Stop()
	}
}

package priorityq

import (
	"sync"
)

var _ PriorityQueue[string] = (*Mutex[string])(nil)

// Mutex is a priority queue behind one mutex, with controller-runtime's
// semantics and order exactly (see engine), but none of its machinery: no
// add buffer, no goroutines handing items to Gets over a channel, no B-tree.
// An Add links a record into its priority's list and signals a parked Get
// directly; a Get unlinks the head of the highest non-empty list. So a
// round trip takes one lock acquisition per call and allocates nothing.
// Delays use one timer armed for the earliest delayed item.
type Mutex[T comparable] struct {
	front[T, *mutexCore[T]]
}

type mutexCore[T comparable] struct {
	part[T]
	s        settings[T]
	getters  sync.Cond // parked Gets; L is &mu
	drainers sync.Cond // parked ShutDownWithDrain calls; L is &mu
	parked   int       // Gets waiting and not yet signalled
	shutdown bool
	draining bool
	refresh  *refresher
}

// NewMutex returns an empty Mutex queue. It refuses Options.Shards.
func NewMutex[T comparable](o Options[T]) (*Mutex[T], error) {
	s, err := o.resolve("NewMutex", false)
	if err != nil {
		return nil, err
	}
	return newMutex(s), nil
}

func newMutex[T comparable](s settings[T]) *Mutex[T] {
	c := &mutexCore[T]{s: s}
	c.getters.L = &c.mu
	c.drainers.L = &c.mu
	c.e.init(s.metrics)
	c.readied = c.wake
	if s.metrics != nil {
		c.refresh = s.metrics.start(func(total, oldest *float64) {
			c.mu.Lock()
			c.e.unfinished(total, oldest)
			c.mu.Unlock()
		})
	}
	return &Mutex[T]{front[T, *mutexCore[T]]{c: c, limiter: s.limiter, yield: s.yield}}
}

// wake signals up to n parked Gets, unregistering them, so that Adds made
// before they run do not signal them again. Called with mu held.
func (c *mutexCore[T]) wake(n int) {
	for ; n > 0 && c.parked > 0; n-- {
		c.parked--
		c.getters.Signal()
	}
}

func (c *mutexCore[T]) add(o AddOpts, item T) {
	c.mu.Lock()
	if !c.shutdown && c.part.add(&c.s, o, item) {
		c.wake(1)
	}
	c.mu.Unlock()
}

func (c *mutexCore[T]) addAll(o AddOpts, items []T) {
	c.mu.Lock()
	for _, item := range items {
		if !c.shutdown && c.part.add(&c.s, o, item) {
			c.wake(1)
		}
	}
	c.mu.Unlock()
}

// get waits while nothing is eligible and the queue runs. After shutdown it
// never waits: it reports shutdown, or with DrainOnShutdown first hands out
// what is eligible.
func (c *mutexCore[T]) get() (item T, prio int, shutdown bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.shutdown && !c.e.eligible() {
		c.parked++
		c.getters.Wait() // whoever wakes us has unregistered us
	}
	if c.shutdown && !c.s.drain {
		return item, 0, true
	}
	item, prio, ok := c.e.pop()
	return item, prio, !ok
}

func (c *mutexCore[T]) done(item T) {
	c.mu.Lock()
	if c.e.done(item) {
		c.wake(1)
	}
	if c.shutdown && c.e.idle() {
		c.drainers.Broadcast()
	}
	c.mu.Unlock()
}

func (c *mutexCore[T]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.e.ready
}

// shutDown wakes every parked Get, which then reports shutdown (or drains).
// ShutDownWithDrain waits only with DrainOnShutdown, as controller-runtime's
// does not wait at all; a later ShutDown ends the wait.
func (c *mutexCore[T]) shutDown(drain bool) {
	c.mu.Lock()
	c.shutdown, c.draining = true, drain && c.s.drain
	c.close()
	c.parked = 0
	c.getters.Broadcast()
	if !c.draining {
		c.drainers.Broadcast()
	}
	for c.draining && !c.e.idle() {
		c.drainers.Wait()
	}
	c.mu.Unlock()
	c.refresh.halt()
}

func (c *mutexCore[T]) shuttingDown() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shutdown
}

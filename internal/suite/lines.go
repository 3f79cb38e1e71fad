package suite

import (
	"slices"
	"sync"
)

// Lines is a goroutine-safe transcript: an event handler under test writes
// down what it was told, from whichever goroutine the implementation calls
// it on, and the property reads the transcript back. The zero value is
// ready to use.
type Lines struct {
	mu    sync.Mutex
	lines []string
}

// Log appends one line.
func (l *Lines) Log(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}

// Got returns a copy of the lines so far, safe to keep while logging goes on.
func (l *Lines) Got() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// Count counts the lines so far, for waiting on a number of calls.
func (l *Lines) Count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

package suite

import (
	"testing"
	"testing/synctest"
)

// StartDrain calls q.ShutDownWithDrain on its own goroutine and returns a
// channel closed once it returns, for MustBlock and MustReturn to check
// when the drain ends: the work queue and priority queue suites pin that
// against their upstreams' waits.
func StartDrain(q interface{ ShutDownWithDrain() }) <-chan struct{} {
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		q.ShutDownWithDrain()
	}()
	return returned
}

// MustBlock fails t unless the call that closes ch, described by what, is
// still running once everything else in t's synctest bubble is blocked:
// inside a bubble "not returned yet" means "waiting", with no sleep.
func MustBlock(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	synctest.Wait()
	select {
	case <-ch:
		t.Fatalf("%s returned early", what)
	default:
	}
}

// MustReturn fails t unless the call that closes ch, described by what,
// has returned once everything else in t's synctest bubble is blocked.
func MustReturn(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	synctest.Wait()
	select {
	case <-ch:
	default:
		t.Fatalf("%s still blocked", what)
	}
}

// Package watchdog turns a deadlock in a test into a failure with a goroutine
// dump, instead of a CI job that hangs until its global timeout.
package watchdog

import (
	"runtime"
	"testing"
	"time"
)

// DefaultTimeout is generous: conformance subtests finish in milliseconds,
// but CI runs them under -race on two shared cores.
const DefaultTimeout = 2 * time.Minute

// Run calls body in a new goroutine and waits for it. If body has not
// returned after timeout, Run dumps every goroutine's stack and fails the
// test with Fatalf; the stuck goroutine is left behind (it cannot be killed),
// so the failing test binary should not be reused.
//
// body may call t.Fatal and friends, or t.Skip: Run re-raises a FailNow or
// SkipNow from the body's goroutine on the test's own goroutine.
func Run(t testing.TB, timeout time.Duration, body func()) {
	t.Helper()
	done := make(chan bool, 1) // true: body returned normally
	go func() {
		finished := false
		defer func() { done <- finished }()
		body()
		finished = true
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case ok := <-done:
		if !ok { // body called FailNow or SkipNow (runtime.Goexit)
			if t.Skipped() && !t.Failed() {
				t.SkipNow()
			}
			t.FailNow()
		}
	case <-timer.C:
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("watchdog: no progress after %v (deadlock?); goroutines:\n%s", timeout, buf)
	}
}

package watchdog_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/queuelab/queuelab/internal/watchdog"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRunReturnsWhenBodyReturns(t *testing.T) {
	ran := false
	watchdog.Run(t, time.Minute, func() { ran = true })
	if !ran {
		t.Fatal("body did not run")
	}
}

// recorder captures failures without failing the real test.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = format
	panic(r) // stop like FailNow would, caught below
}

func TestRunFailsOnTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release) // let the stuck body exit so goleak stays clean
	rec := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != rec {
				t.Fatalf("expected recorder panic, got %v", p)
			}
		}()
		watchdog.Run(rec, 10*time.Millisecond, func() { <-release })
	}()
	if rec.fatal == "" {
		t.Fatal("watchdog did not fire")
	}
}

func TestRunPassesSkipOn(t *testing.T) {
	t.Run("skipped", func(t *testing.T) {
		watchdog.Run(t, time.Minute, func() { t.Skip("skipped in the body") })
		t.Error("Run returned after the body skipped")
	})
	// The subtest above must be reported as skipped, not failed.
}

package priorityq_test

import (
	"fmt"
	"runtime/debug"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/queues/priorityq"
)

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestIdleQueueUsesNoCPU: an idle queue, configured as controllers run it
// (named, so it publishes metrics, with 1,000 items parked an hour ahead),
// whose 8 workers are blocked in Get, uses less than 1% of a core: workers
// park instead of spinning. It is the one CPU-usage assertion of the
// package, measured on the whole process over one second per variant, so
// it must not run in parallel with other tests.
func TestIdleQueueUsesNoCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU time over 3 s")
	}
	const window = time.Second
	for _, v := range variants[string]() {
		t.Run("impl="+v.name, func(t *testing.T) {
			q, err := v.new(priorityq.Options[string]{Name: "idle-" + v.name})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 1000 {
				q.AddAfter(fmt.Sprint("parked-", i), time.Hour)
			}
			var workers sync.WaitGroup
			for range 8 {
				workers.Go(func() { suite.Worker[string](q) })
			}
			time.Sleep(100 * time.Millisecond) // the workers reach Get
			// Earlier tests' garbage, and the background scavenger's return
			// of their memory to the OS (about 1% of a core while it
			// lasts), are not this queue's work: do both now.
			debug.FreeOSMemory()
			before := cpuTime(t)
			time.Sleep(window)
			used := cpuTime(t) - before
			q.ShutDown()
			workers.Wait()
			if used > window/100 {
				t.Errorf("an idle queue with 8 workers in Get used %v of CPU in %v, want under 1%% of a core (%v)", used, window, window/100)
			}
		})
	}
}

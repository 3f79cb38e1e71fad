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
// package, measured on the whole process, so it must not run in parallel
// with other tests. What the process burns with no queue at all over the
// same window just before (the race runtime, the GC's background work,
// the scavenger: about 1% of a core under -race by themselves) is not the
// queue's and is subtracted; a spinning worker would cost a whole core.
func TestIdleQueueUsesNoCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU time over 12 s")
	}
	const window = 2 * time.Second
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
			debug.FreeOSMemory()
			before = cpuTime(t)
			time.Sleep(window)
			background := cpuTime(t) - before
			if used-background > window/100 {
				t.Errorf("an idle queue with 8 workers in Get used %v of CPU in %v (the process without it: %v), want under 1%% of a core (%v) more", used, window, background, window/100)
			}
		})
	}
}

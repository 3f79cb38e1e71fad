package fanout

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
	"k8s.io/utils/clock"

	"github.com/queuelab/queuelab/internal/suite"
)

// panicky records the objects it is handed (strings, in these tests) and
// panics on those in panicOn.
type panicky struct {
	suite.Lines
	panicOn map[any]bool
}

func (h *panicky) OnAdd(obj any, _ bool) { h.note(obj) }
func (h *panicky) OnUpdate(_, obj any)   { h.note(obj) }
func (h *panicky) OnDelete(obj any)      { h.note(obj) }
func (h *panicky) note(obj any) {
	if h.panicOn[obj] {
		panic(fmt.Sprintf("panicky: %v", obj)) // the location the log must name
	}
	h.Log(obj.(string))
}

// logBuffer is a klog.Logger's output, safe to read while it is written.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() klog.Logger {
	return textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(b)))
}

func updates(objs ...any) []Event {
	events := make([]Event, len(objs))
	for i, o := range objs {
		events[i] = Event{Kind: Update, Obj: o, Old: o}
	}
	return events
}

// assertPanicLogged checks that the panic on obj was logged as
// utilruntime.HandleCrash logs it: message, value, stack, and the
// handler's line as the location.
func assertPanicLogged(t *testing.T, log string, obj any) {
	t.Helper()
	assert.Contains(t, log, `"Observed a panic"`)
	assert.Contains(t, log, fmt.Sprintf(`panic="panicky: %v"`, obj))
	assert.Contains(t, log, "stacktrace=")
	assert.Regexp(t, `panic_test.go:\d+\] "Observed a panic"`, log, "the location is the handler's")
}

// TestCrashWithoutReallyCrash: under the default policy with
// utilruntime.ReallyCrash off, a panicking handler behaves as client-go's
// processorListener: the panic is logged, the event skipped, the
// registration waits a second before its next event, and an initial-list
// add that panicked leaves it unsynced. The other registration gets
// everything at once, and removing the paused one ends it without waiting.
func TestCrashWithoutReallyCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer func(prev bool) { utilruntime.ReallyCrash = prev }(utilruntime.ReallyCrash)
		utilruntime.ReallyCrash = false
		var log logBuffer
		f := New(clock.RealClock{}, Crash)
		bad := &panicky{panicOn: map[any]bool{"i": true, "b": true}}
		good := &panicky{}
		badReg, err := f.Add(bad, "bad", log.logger(), 0, 0, []any{"i"})
		require.NoError(t, err)
		goodReg, err := f.Add(good, "good", klog.Background(), 0, 0, []any{"i"})
		require.NoError(t, err)
		f.Start()
		f.Synced()
		f.Push(updates("a", "b", "c"))
		synctest.Wait()
		assert.Equal(t, []string{"i", "a", "b", "c"}, good.Got(), "the other registration is not held up")
		assert.True(t, goodReg.HasSynced())
		assert.Empty(t, bad.Got(), "paused a second after the panic on the initial add")
		time.Sleep(crashPause)
		synctest.Wait()
		assert.Equal(t, []string{"a"}, bad.Got(), "paused again after the panic on b")
		time.Sleep(crashPause)
		synctest.Wait()
		assert.Equal(t, []string{"a", "c"}, bad.Got())
		assert.False(t, badReg.HasSynced(), "an initial add that panicked is never delivered (client-go)")
		assertPanicLogged(t, log.String(), "i")
		assertPanicLogged(t, log.String(), "b")

		bad.panicOn["d"] = true // the listener is parked: nothing reads panicOn now
		f.Push(updates("d", "e"))
		synctest.Wait()
		f.Remove(badReg)
		synctest.Wait()
		select {
		case <-badReg.ShutdownChan():
		default:
			t.Error("a registration removed during its pause is still running")
		}
		f.Stop()
		assert.Equal(t, []string{"a", "c"}, bad.Got(), "nothing delivered after removal")
	})
}

// TestSkipRecoversWhateverReallyCrash: under Skip a panicking handler
// loses only the event it panicked on, even with utilruntime.ReallyCrash
// on: the panic is logged as HandleCrash logs it, the next event follows
// at once, and an initial-list add that panicked counts as delivered.
func TestSkipRecoversWhateverReallyCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		require.True(t, utilruntime.ReallyCrash, "the default")
		var log logBuffer
		f := New(clock.RealClock{}, Skip)
		bad := &panicky{panicOn: map[any]bool{"i": true, "b": true}}
		reg, err := f.Add(bad, "bad", log.logger(), 0, 0, []any{"i", "j"})
		require.NoError(t, err)
		f.Start()
		f.Synced()
		f.Push(updates("a", "b", "c"))
		synctest.Wait()
		assert.Equal(t, []string{"j", "a", "c"}, bad.Got(), "no pause after a panic")
		assert.True(t, reg.HasSynced(), "an initial add that panicked counts as delivered")
		assertPanicLogged(t, log.String(), "i")
		assertPanicLogged(t, log.String(), "b")
		f.Stop()
	})
}

package informer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
	"github.com/queuelab/queuelab/informer/informertest"
)

// crashChild, set in the environment, makes
// TestHandlerPanicCrashesByDefault run the informer whose handler panics
// instead of watching a child do it.
const crashChild = "QUEUELAB_INFORMER_CRASH_CHILD"

// TestHandlerPanicCrashesByDefault: with the zero Options and
// utilruntime.ReallyCrash at its default, a handler's panic is
// utilruntime.HandleCrash's: logged with its location and stack, then
// re-panicked, which ends the process — as client-go's informer does. The
// informer runs in a child process (this test binary again) so the crash
// ends only the child.
func TestHandlerPanicCrashesByDefault(t *testing.T) {
	if os.Getenv(crashChild) != "" {
		runPanickingInformer(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHandlerPanicCrashesByDefault$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChild+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the child must crash; it ended with %v:\n%s", err, out)
	assert.Equal(t, 2, exit.ExitCode(), "a Go panic's exit status")
	assert.Contains(t, string(out), "panic: informer test: handler panics on ns/b")
	assert.Regexp(t, `panic_test.go:\d+\] "Observed a panic" panic="informer test: handler panics on ns/b"`, string(out),
		"HandleCrash logged the panic at the handler's line")
	assert.NotContains(t, string(out), "the child survived", "the event after the panic was never handled")
}

// runPanickingInformer is the child: its handler panics on ns/b; if the
// informer recovers, the handler gets ns/c and the child says so.
func runPanickingInformer(t *testing.T) {
	src := informertest.NewSource()
	inf, err := informer.NewSharedIndexInformer(src.ListerWatcher(), &corev1.Pod{}, informer.Options{})
	require.NoError(t, err)
	survived := make(chan struct{})
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		switch obj.(*corev1.Pod).Name {
		case "b":
			panic("informer test: handler panics on ns/b")
		case "c":
			close(survived)
		}
	}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))
	for _, n := range []string{"a", "b", "c"} {
		src.Create(informertest.Pod("ns", n, "x"))
	}
	<-survived
	fmt.Println("the child survived the panic")
}

package queuesuite

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/testobj"
)

// Helpers shared by the FIFO and DeltaFIFO suites.

// queueNS is the namespace of every object the queue suites make.
const queueNS = "ns"

// obj is the test object name@rv in queueNS.
func obj(name, rv string) *metav1.PartialObjectMetadata { return testobj.Meta(queueNS, name, rv) }

// key is obj's key.
func key(name string) string { return queueNS + "/" + name }

// popped is what one Pop handed its process function, and what it returned.
type popped struct {
	item     any // given to process
	initial  bool
	returned any // returned by Pop
	err      error
}

// popOnce pops one item with a process function that returns perr. Call it
// only when something is queued (an empty queue blocks; the watchdog then
// fails the test with a goroutine dump).
func popOnce(q cache.Queue, perr error) popped {
	var p popped
	p.returned, p.err = q.Pop(func(item any, initial bool) error {
		p.item, p.initial = item, initial
		return perr
	})
	return p
}

// drain closes q and pops until it reports cache.ErrFIFOClosed, returning
// everything it popped: the whole remaining content.
func drain(t *testing.T, q cache.Queue) []popped {
	t.Helper()
	return Drain(t, q, func() (popped, error) {
		p := popOnce(q, nil)
		return p, p.err
	})
}

// Drain closes q and calls pop until it reports cache.ErrFIFOClosed,
// returning what every other call returned; any other error fails the test.
// Every suite of a cache.Queue-like family ends its properties this way.
func Drain[P any](t *testing.T, q interface{ Close() }, pop func() (P, error)) []P {
	t.Helper()
	q.Close()
	var out []P
	for {
		p, err := pop()
		if errors.Is(err, cache.ErrFIFOClosed) {
			return out
		}
		if err != nil {
			t.Fatalf("Pop after Close: %v", err)
		}
		out = append(out, p)
	}
}

// closedAlready reports whether ch is closed.
func closedAlready(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// checkSynced asserts HasSynced and the HasSyncedChecker channel agree with
// want.
func checkSynced(t *testing.T, q cache.Queue, want bool, when string) {
	t.Helper()
	if got := q.HasSynced(); got != want {
		t.Errorf("%s: HasSynced() = %v, want %v", when, got, want)
	}
	if got := closedAlready(q.HasSyncedChecker().Done()); got != want {
		t.Errorf("%s: HasSyncedChecker().Done() closed = %v, want %v", when, got, want)
	}
}

// badObject has no key under cache.MetaNamespaceKeyFunc.
type badObject struct{ id int }

// isKeyError reports whether err is (or wraps) a cache.KeyError.
func isKeyError(err error) bool {
	var ke cache.KeyError
	return errors.As(err, &ke)
}

// byName is a custom key function: objects of one name share a key,
// whatever their namespace.
func byName(o any) (string, error) {
	m, ok := o.(*metav1.PartialObjectMetadata)
	if !ok {
		return "", errors.New("not a test object")
	}
	return "name:" + m.Name, nil
}

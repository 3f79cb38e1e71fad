package badinput

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/lab/registry"
	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/deltafifo/deltafifotest"
	"github.com/queuelab/queuelab/queues/fifo"
	"github.com/queuelab/queuelab/queues/fifo/fifotest"
	"github.com/queuelab/queuelab/queues/inorder"
)

// newQueue builds an empty FIFO-like queue (FIFO, DeltaFIFO, in-order FIFO)
// keyed by keyFunc.
type newQueue func(keyFunc cache.KeyFunc) cache.Queue

// fifoEntry and deltaFIFOEntry are entries of the lab registry's FIFOs and
// DeltaFIFOs.
type (
	fifoEntry      = registry.Entry[func(keyFunc cache.KeyFunc) cache.Queue, fifotest.Guarantees]
	deltaFIFOEntry = registry.Entry[func(opts cache.DeltaFIFOOptions) cache.Queue, deltafifotest.Guarantees]
)

// queueImpl is one implementation of a FIFO-like family.
type queueImpl struct {
	new newQueue
	// badOptions builds the variant with an option out of range, the value
	// badValue; nil for upstream, which has no such options.
	badOptions func() error
	badValue   int
}

// noMeta is an object without ObjectMeta: no key function of client-go's
// can key it.
type noMeta struct{ Name string }

// errBadKey is the key function error the probes inject.
var errBadKey = errors.New("injected key error")

// failingKeyFunc keys objects as MetaNamespaceKeyFunc does, except that the
// object named "bad" fails.
func failingKeyFunc(obj any) (string, error) {
	if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Name == "bad" {
		return "", errBadKey
	}
	return cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
}

func object(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

// errorClass describes a write's result; cause, when set, must be wrapped.
func errorClass(err error, cause error) string {
	var ke cache.KeyError
	switch {
	case err == nil:
		return "accepted"
	case errors.As(err, &ke) && (cause == nil || errors.Is(err, cause)):
		return "KeyError"
	default:
		return "error: " + err.Error()
	}
}

// queueWrites calls Add, Update and Delete with obj and describes their
// results, then what the queue holds.
func queueWrites(nq newQueue, keyFunc cache.KeyFunc, obj any, cause error) string {
	q := nq(keyFunc)
	results := map[string][]string{}
	var order []string
	for _, m := range []struct {
		name  string
		write func(any) error
	}{{"Add", q.Add}, {"Update", q.Update}, {"Delete", q.Delete}} {
		var err error
		class := ""
		if msg := panics(func() { err = m.write(obj) }); msg != "" {
			class = "panics: " + msg
		} else {
			class = errorClass(err, cause)
		}
		if results[class] == nil {
			order = append(order, class)
		}
		results[class] = append(results[class], m.name)
	}
	var parts []string
	for _, class := range order {
		parts = append(parts, strings.Join(results[class], ", ")+": "+class)
	}
	return strings.Join(parts, "; ") + "; the queue then holds " + drain(q, object("a"))
}

// drain adds extra (if not nil), closes q and pops it empty, describing what
// came out.
func drain(q cache.Queue, extra any) string {
	if extra != nil {
		if err := q.Add(extra); err != nil {
			return "nothing: Add fails: " + err.Error()
		}
	}
	q.Close()
	var out []string
	for range 100 {
		_, err := q.Pop(func(obj any, _ bool) error {
			out = append(out, describeObj(obj))
			return nil
		})
		if errors.Is(err, cache.ErrFIFOClosed) {
			slices.Sort(out) // a variant may relax the order across keys
			return "[" + strings.Join(out, " ") + "]"
		}
		if err != nil {
			return fmt.Sprintf("[%s], then Pop fails: %v", strings.Join(out, " "), err)
		}
	}
	return "more than 100 items"
}

// describeObj names what a Pop handed out.
func describeObj(obj any) string {
	switch o := obj.(type) {
	case nil:
		return "nil"
	case *corev1.ConfigMap:
		return o.Name
	case cache.Deltas:
		var s []string
		for _, d := range o {
			s = append(s, describeObj(d))
		}
		return strings.Join(s, ",")
	case cache.Delta:
		return string(o.Type) + "(" + describeObj(o.Object) + ")"
	case cache.ReplacedAllInfo:
		var s []string
		for _, x := range o.Objects {
			s = append(s, describeObj(x))
		}
		return strings.Join(s, ",")
	case cache.DeletedFinalStateUnknown:
		return "tombstone(" + o.Key + ")"
	default:
		return fmt.Sprintf("%T", obj)
	}
}

// queueReplace replaces a queue holding "a" with a list one of whose
// objects has no key, and describes the result.
func queueReplace(nq newQueue) string {
	q := nq(failingKeyFunc)
	if err := q.Add(object("a")); err != nil {
		return "Add fails: " + err.Error()
	}
	var err error
	if msg := panics(func() { err = q.Replace([]any{object("b"), object("bad"), object("c")}, "1") }); msg != "" {
		return "panics: " + msg
	}
	return "Replace: " + errorClass(err, errBadKey) + "; the queue then holds " + drain(q, nil)
}

// queueAfterClose writes to and closes a closed queue.
func queueAfterClose(nq newQueue) string {
	q := nq(cache.DeletionHandlingMetaNamespaceKeyFunc)
	if err := q.Add(object("a")); err != nil {
		return "Add fails: " + err.Error()
	}
	q.Close()
	var err error
	if msg := panics(func() { err = q.Add(object("late")) }); msg != "" {
		return "Add panics: " + msg
	}
	out := "Add after Close: " + errorClass(err, nil)
	if msg := panics(q.Close); msg != "" {
		return out + "; second Close panics: " + msg
	}
	return out + "; second Close returns; Pop hands out " + drain(q, nil) + ", then ErrFIFOClosed"
}

// queueCase is one of the probes every FIFO-like family runs.
type queueProbe struct {
	name  string
	probe func(nq newQueue) string
}

var (
	probeNil    = queueProbe{"nil object", func(nq newQueue) string { return queueWrites(nq, cache.DeletionHandlingMetaNamespaceKeyFunc, nil, nil) }}
	probeNoMeta = queueProbe{"object without ObjectMeta", func(nq newQueue) string {
		return queueWrites(nq, cache.DeletionHandlingMetaNamespaceKeyFunc, noMeta{"x"}, nil)
	}}
	probeKeyErr    = queueProbe{"key function error", func(nq newQueue) string { return queueWrites(nq, failingKeyFunc, object("bad"), errBadKey) }}
	probeReplace   = queueProbe{"key function error in Replace", queueReplace}
	probeAfterShut = queueProbe{"every method after Close", queueAfterClose}
)

// queueCase makes a row of p.
func queueCase(p queueProbe, upstream, variants string) badCase[queueImpl] {
	return badCase[queueImpl]{name: p.name, upstream: upstream, variants: variants,
		probe: func(t *testing.T, qi queueImpl) string { return p.probe(qi.new) }}
}

// keyErrorCases are the three rows every FIFO-like family answers alike: a
// nil object, one without metadata and a failing key function all meet the
// same key error, so the family states what follows once, in upstream.
func keyErrorCases(upstream string) []badCase[queueImpl] {
	return []badCase[queueImpl]{
		queueCase(probeNil, upstream, ""),
		queueCase(probeNoMeta, upstream, ""),
		queueCase(probeKeyErr, upstream, ""),
	}
}

// withNote gives c a note.
func withNote[E any](c badCase[E], note string) badCase[E] {
	c.note = note
	return c
}

// fifoLikeCases is the table of a FIFO-like family, whose rows are the same
// for every such family: the three key-error rows (keyErrors says what
// follows them), replace (Replace with a keyless object, which families
// answer differently), every method after Close (afterClose says what
// happens), and the out-of-range value of option (noOption is upstream's
// answer).
func fifoLikeCases(keyErrors string, replace badCase[queueImpl], afterClose, option, noOption string) []badCase[queueImpl] {
	return append(keyErrorCases(keyErrors), replace, queueCase(probeAfterShut, afterClose, ""), queueOptionsCase(option, noOption))
}

// queueOptionsCase is the out-of-range options row of a FIFO-like family.
func queueOptionsCase(option, upstream string) badCase[queueImpl] {
	return badCase[queueImpl]{
		name:     "out-of-range options (" + option + ")",
		upstream: upstream,
		variants: "constructor returns an error quoting the bad value",
		probe: func(t *testing.T, qi queueImpl) string {
			if qi.badOptions == nil {
				return upstream
			}
			if err := qi.badOptions(); err != nil {
				return quotes(err, qi.badValue)
			}
			return "accepted"
		},
	}
}

// layoutImpl gives a FIFO or DeltaFIFO variant its out-of-range options
// probe: Shards -1 for those that shard, 4 for Mutex, which has one lock and
// takes none. ctors builds each variant with a shard count; upstream has
// none.
func layoutImpl(name string, qi queueImpl, ctors map[string]func(shards int) error) queueImpl {
	ctor, ok := ctors[name]
	if !ok {
		return qi
	}
	qi.badValue = -1
	if name == "mutex" {
		qi.badValue = 4
	}
	qi.badOptions = func() error { return ctor(qi.badValue) }
	return qi
}

// errOf is a constructor's error.
func errOf[Q any](_ Q, err error) error { return err }

// layouts builds each layout variant of a FIFO-like family (mutex, sharded,
// ring) with a shard count, for layoutImpl: opts is the family's Options
// with that count.
func layouts[O, M, S, R any](opts func(shards int) O, mutex func(O) (M, error), sharded func(O) (S, error), ring func(O) (R, error)) map[string]func(int) error {
	return map[string]func(int) error{
		"mutex":   func(n int) error { return errOf(mutex(opts(n))) },
		"sharded": func(n int) error { return errOf(sharded(opts(n))) },
		"ring":    func(n int) error { return errOf(ring(opts(n))) },
	}
}

var fifoLayouts = layouts(func(n int) fifo.Options { return fifo.Options{Shards: n} }, fifo.NewMutex, fifo.NewSharded, fifo.NewRing)

func fifoImpls() []impl[queueImpl] {
	return implsOf(registry.FIFOs(), registry.Baseline, func(e fifoEntry) (queueImpl, bool) {
		return layoutImpl(e.Name, queueImpl{new: newQueue(e.New)}, fifoLayouts), true
	})
}

const (
	keyErrors       = "Add, Update, Delete: KeyError; the queue then holds [a]"
	afterCloseFIFO  = "Add after Close: accepted; second Close returns; Pop hands out [a late], then ErrFIFOClosed"
	replaceAtomic   = "Replace: KeyError; the queue then holds [a]"
	noLayoutOptions = "no such options (one mutex, no shards or rings)"
)

var fifoCases = fifoLikeCases(keyErrors, queueCase(probeReplace, replaceAtomic, ""), afterCloseFIFO, "Shards", noLayoutOptions)

func fifoFamily() family {
	return describe("FIFO (queues/fifo; client-go cache.FIFO)", fifoCases, fifoImpls())
}

func TestFIFOBadInput(t *testing.T) { runCases(t, fifoCases, fifoImpls()) }

var deltaFIFOLayouts = layouts(func(n int) deltafifo.Options { return deltafifo.Options{Shards: n} }, deltafifo.NewMutex, deltafifo.NewSharded, deltafifo.NewRing)

// deltaFIFOImpls leaves out client-go's RealFIFO, a peer in the registry:
// the in-order tables cover it.
func deltaFIFOImpls() []impl[queueImpl] {
	return implsOf(registry.DeltaFIFOs(), registry.Baseline, func(e deltaFIFOEntry) (queueImpl, bool) {
		qi := queueImpl{new: func(keyFunc cache.KeyFunc) cache.Queue {
			return e.New(cache.DeltaFIFOOptions{KeyFunction: keyFunc})
		}}
		return layoutImpl(e.Name, qi, deltaFIFOLayouts), !e.Guarantees.Peer
	})
}

const (
	deltaKeyErrors   = "Add, Update, Delete: KeyError; the queue then holds [Added(a)]"
	deltaAfterClose  = "Add after Close: accepted; second Close returns; Pop hands out [Added(a) Added(late)], then ErrFIFOClosed"
	deltaReplaceHalf = "Replace: KeyError; the queue then holds [Added(a) Sync(b)]"
	deltaReplace     = "Replace: KeyError; the queue then holds [Added(a)]"
)

var deltaFIFOCases = fifoLikeCases(deltaKeyErrors,
	withNote(queueCase(probeReplace, deltaReplaceHalf, deltaReplace),
		"client-go queues the objects before the bad one (half-applied); the variants key the whole list first and apply nothing"),
	deltaAfterClose, "Shards", noLayoutOptions)

func deltaFIFOFamily() family {
	return describe("DeltaFIFO (queues/deltafifo; client-go cache.DeltaFIFO)", deltaFIFOCases, deltaFIFOImpls())
}

func TestDeltaFIFOBadInput(t *testing.T) { runCases(t, deltaFIFOCases, deltaFIFOImpls()) }

// inorderImpls is the in-order registry in one mode: atomic (the informers'
// queue; upstream is client-go's RealFIFO as informers build it) or
// per-object (upstream is client-go's non-atomic RealFIFO).
func inorderImpls(perObject bool) []impl[queueImpl] {
	var out []impl[queueImpl]
	for _, e := range registry.InOrderFIFOs() {
		if perObject && !e.Guarantees.PerObject || !perObject && !e.Guarantees.Atomic {
			continue
		}
		build := func(opts inorder.Options) (cache.Queue, error) {
			if perObject {
				opts.KnownObjects = cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
			}
			return e.New(opts)
		}
		qi := queueImpl{new: func(keyFunc cache.KeyFunc) cache.Queue {
			return registry.Must(build(inorder.Options{KeyFunction: keyFunc}))
		}}
		upstream := e.Name == registry.Baseline || e.Name == "clientgo-nonatomic"
		if !upstream {
			qi.badValue = -1
			qi.badOptions = func() error {
				_, err := build(inorder.Options{BatchSize: -1})
				return err
			}
		}
		out = append(out, impl[queueImpl]{e.Name, upstream, qi})
	}
	return out
}

const inorderAfterClose = deltaAfterClose

// inorderNoBatchSize is upstream's answer to an out-of-range batch size.
const inorderNoBatchSize = "no such option (client-go's batch size is fixed)"

var inorderCases = fifoLikeCases(deltaKeyErrors,
	withNote(queueCase(probeReplace, "Replace: accepted; the queue then holds [Added(a) ReplacedAll(b,bad,c)]", ""),
		"the one ReplacedAll event carries the list unkeyed; the informer's consumer meets the key error when it applies the event"),
	inorderAfterClose, "BatchSize", inorderNoBatchSize)

var inorderPerObjectCases = fifoLikeCases(deltaKeyErrors, withNote(queueCase(probeReplace, deltaReplace, ""), "nothing applied"),
	inorderAfterClose, "BatchSize", inorderNoBatchSize)

func inorderFamily() family {
	return describe("In-order FIFO, atomic mode (queues/inorder; client-go RealFIFO as informers build it)", inorderCases, inorderImpls(false))
}

func inorderPerObjectFamily() family {
	return describe("In-order FIFO, per-object mode (queues/inorder with KnownObjects; client-go's non-atomic RealFIFO)", inorderPerObjectCases, inorderImpls(true))
}

func TestInOrderBadInput(t *testing.T) {
	t.Run("atomic", func(t *testing.T) { runCases(t, inorderCases, inorderImpls(false)) })
	t.Run("per-object", func(t *testing.T) { runCases(t, inorderPerObjectCases, inorderImpls(true)) })
}

package queuesuite

import (
	"slices"
	"testing"

	"github.com/queuelab/queuelab/guarantee"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/testobj"
)

// NewDeltaFIFO constructs a fresh, empty DeltaFIFO honouring opts for one
// subtest.
type NewDeltaFIFO func(t *testing.T, opts cache.DeltaFIFOOptions) cache.Queue

// DeltaFIFOProperties is the DeltaFIFO suite's table (see deltafifotest):
// properties of DeltaFIFOs from newDeltaFIFO, skipped as c declares.
func DeltaFIFOProperties(newDeltaFIFO NewDeltaFIFO, c Config) []suite.Property {
	var props []suite.Property
	mk := func(t *testing.T, known ...*metav1.PartialObjectMetadata) cache.Queue {
		o := cache.DeltaFIFOOptions{EmitDeltaTypeReplaced: true}
		if known != nil {
			o.KnownObjects = knownStore(known...)
		}
		return newDeltaFIFO(t, o)
	}

	props = append(props, suite.Property{Name: "add-update-accumulate", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		must(t, q.Update(obj("a", "2")))
		must(t, q.Update(obj("a", "3")))
		p := popOnce(q, nil)
		wantDeltas(t, p.item, "{Added:a@1 Updated:a@2 Updated:a@3}")
		wantDeltas(t, p.returned, "{Added:a@1 Updated:a@2 Updated:a@3}")
		wantEmpty(t, q)
	}})

	props = append(props, suite.Property{Name: "delete-of-unknown-key-is-ignored", Run: func(t *testing.T) {
		for _, q := range []cache.Queue{mk(t), mk(t, obj("other", "1"))} {
			must(t, q.Delete(obj("a", "1")))
			checkSynced(t, q, true, "after a Delete, even an ignored one")
			wantEmpty(t, q)
		}
	}})

	props = append(props, suite.Property{Name: "delete-of-known-key-is-queued", Run: func(t *testing.T) {
		q := mk(t, obj("a", "1"))
		must(t, q.Delete(obj("a", "1")))
		wantDrained(t, q, "{Deleted:a@1}")
	}})

	props = append(props, suite.Property{Name: "delete-of-queued-key-is-appended", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		must(t, q.Delete(obj("a", "1")))
		wantDrained(t, q, "{Added:a@1 Deleted:a@1}")
	}})

	props = append(props, suite.Property{Name: "double-delete-keeps-the-richer", Run: func(t *testing.T) {
		q := mk(t)
		for _, n := range []string{"a", "b", "c"} {
			must(t, q.Add(obj(n, "1")))
		}
		must(t, q.Delete(obj("a", "2")))
		must(t, q.Delete(tomb("a", obj("a", "1")))) // a real object beats a tombstone
		must(t, q.Delete(tomb("b", obj("b", "1"))))
		must(t, q.Delete(obj("b", "2"))) // ... and replaces one
		must(t, q.Delete(tomb("c", obj("c", "1"))))
		must(t, q.Delete(tomb("c", obj("c", "2")))) // two tombstones: the newer
		wantDrained(t, q,
			"{Added:a@1 Deleted:a@2}",
			"{Added:b@1 Deleted:b@2}",
			"{Added:c@1 Deleted:tombstone(ns/c,c@2)}")
	}})

	props = append(props, suite.Property{Name: "replace-emits-sync-or-replaced", Run: func(t *testing.T) {
		for emit, want := range map[bool]string{false: "{Sync:a@1}", true: "{Replaced:a@1}"} {
			q := newDeltaFIFO(t, cache.DeltaFIFOOptions{EmitDeltaTypeReplaced: emit})
			must(t, q.Replace([]any{obj("a", "1")}, "1"))
			wantDrained(t, q, want)
		}
	}})

	props = append(props, suite.Property{Name: "replace-tombstones-queued-keys", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("x", "1")))
		must(t, q.Add(obj("y", "1")))
		must(t, q.Replace([]any{obj("y", "2"), obj("z", "1")}, "2"))
		wantDrained(t, q,
			"{Added:x@1 Deleted:tombstone(ns/x,x@1)}",
			"{Added:y@1 Replaced:y@2}",
			"{Replaced:z@1}")
	}})

	props = append(props, suite.Property{Name: "replace-tombstones-known-keys", Run: func(t *testing.T) {
		q := mk(t, obj("a", "1"), obj("b", "1"), obj("c", "1"))
		must(t, q.Replace([]any{obj("a", "2")}, "2"))
		wantDrained(t, q,
			"{Replaced:a@2}",
			"{Deleted:tombstone(ns/b,b@1)}",
			"{Deleted:tombstone(ns/c,c@1)}")
	}})

	props = append(props, suite.Property{Name: "replace-tombstone-holds-last-known-object", Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("x", "1")))
		must(t, q.Delete(tomb("x", obj("x", "1")))) // newest delta: a tombstone, unwrapped below
		must(t, q.Add(obj("y", "1")))
		must(t, q.Delete(obj("y", "2"))) // newest delta: a real deletion, which dedup keeps
		must(t, q.Replace(nil, "2"))
		wantDrained(t, q,
			"{Added:x@1 Deleted:tombstone(ns/x,x@1)}",
			"{Added:y@1 Deleted:y@2}")
	}})

	props = append(props, suite.Property{Name: "replace-tombstone-of-vanished-known-object", Run: func(t *testing.T) {
		q := newDeltaFIFO(t, cache.DeltaFIFOOptions{KnownObjects: unreliableKnown{
			keys: []string{key("gone"), key("broken")},
		}})
		must(t, q.Replace(nil, "1"))
		wantDrained(t, q, "{Deleted:tombstone(ns/broken,nil)}", "{Deleted:tombstone(ns/gone,nil)}")
	}})

	props = append(props, suite.Property{Name: "ext-replace-key-error-changes-nothing", Skip: c.skipUnlessExt(), Run: func(t *testing.T) {
		// client-go has queued the objects before the bad one
		q := mk(t, obj("k", "1"))
		must(t, q.Add(obj("x", "1")))
		if err := q.Replace([]any{obj("a", "1"), obj("x", "2"), badObject{1}}, "2"); !isKeyError(err) {
			t.Fatalf("Replace with a keyless object: err = %v, want a cache.KeyError", err)
		}
		checkSynced(t, q, true, "after the Add (the failed Replace sets nothing)")
		wantDrained(t, q, "{Added:x@1}")
	}})

	props = append(props, suite.Property{Name: "resync-syncs-known-keys-without-deltas", Run: func(t *testing.T) {
		q := mk(t, obj("a", "1"), obj("b", "1"), obj("c", "1"))
		must(t, q.Update(obj("a", "2")))
		must(t, q.Delete(obj("c", "1")))
		must(t, q.Resync())
		wantDrained(t, q, "{Updated:a@2}", "{Sync:b@1}", "{Deleted:c@1}")

		q = mk(t) // no KnownObjects: nothing to resync
		must(t, q.Resync())
		checkSynced(t, q, false, "after Resync (not a write)")
		wantEmpty(t, q)
	}})

	props = append(props, c.queueProperties(func(t *testing.T) cache.Queue { return mk(t) })...)

	props = append(props, suite.Property{Name: "custom-key-function", Run: func(t *testing.T) {
		q := newDeltaFIFO(t, cache.DeltaFIFOOptions{KeyFunction: byName})
		must(t, q.Add(obj("a", "1")))
		must(t, q.Update(testobj.Meta("other", "a", "2"))) // same name: same key
		if k, ok := q.(interface{ KeyOf(any) (string, error) }); ok {
			if got, err := k.KeyOf(obj("a", "9")); err != nil || got != "name:a" {
				t.Errorf("KeyOf = %q, %v; want the custom key name:a", got, err)
			}
		}
		wantDrained(t, q, "{Added:a@1 Updated:a@2}")
	}})

	props = append(props, suite.Property{Name: "keyof-sees-through-deltas-and-tombstones", Run: func(t *testing.T) {
		q := mk(t)
		k := suite.As[interface{ KeyOf(any) (string, error) }](t, q)
		for _, tc := range []struct {
			in   any
			want string
		}{
			{obj("a", "1"), key("a")},
			{cache.Deltas{{Type: cache.Added, Object: obj("b", "1")}, {Type: cache.Deleted, Object: obj("a", "2")}}, key("a")},
			{tomb("t", nil), key("t")},
			{cache.Deltas{{Type: cache.Deleted, Object: tomb("u", nil)}}, key("u")},
		} {
			if got, err := k.KeyOf(tc.in); err != nil || got != tc.want {
				t.Errorf("KeyOf(%s) = %q, %v; want %q", describeOne(tc.in), got, err, tc.want)
			}
		}
		if _, err := k.KeyOf(cache.Deltas{}); err == nil {
			t.Error("KeyOf(empty Deltas) succeeded")
		}
	}})

	props = append(props, suite.Property{Name: "has-synced-after-initial-list-popped", Run: func(t *testing.T) {
		q := mk(t, obj("k", "1"))
		must(t, q.Replace([]any{obj("a", "1"), obj("b", "1")}, "1")) // a, b and k's tombstone
		must(t, q.Add(obj("c", "1")))                                // not initial
		must(t, q.Replace([]any{obj("a", "2"), obj("d", "1")}, "2")) // neither is a second list
		initial := map[string]bool{key("a"): true, key("b"): true, key("k"): true}
		for i := range 5 { // a, b, k, c, d: the initial keys first, per shard at least
			checkSynced(t, q, false, "before the last initial key")
			p := popOnce(q, nil)
			k := fifoKeys(t, []popped{p})[0]
			if p.initial != initial[k] {
				t.Errorf("pop %d (%s): isInInitialList = %v, want %v", i, describeOne(p.item), p.initial, initial[k])
			}
			if c.Order == guarantee.OrderFIFO && p.initial != (i < 3) {
				t.Errorf("pop %d (%s): the initial keys come first in FIFO order", i, describeOne(p.item))
			}
			delete(initial, k)
			if len(initial) == 0 {
				checkSynced(t, q, true, "after the initial keys")
				break
			}
		}
		drain(t, q)

		q = mk(t)
		must(t, q.Replace([]any{obj("a", "1"), obj("a", "2")}, "1")) // one key listed twice
		popOnce(q, nil)
		checkSynced(t, q, true, "after popping the one listed key")
	}})

	props = append(props, suite.Property{Name: "transformer-runs-once-per-entering-object", Run: func(t *testing.T) {
		tr := &recordingTransformer{}
		q := newDeltaFIFO(t, cache.DeltaFIFOOptions{
			KnownObjects:          knownStore(obj("k", "1")),
			EmitDeltaTypeReplaced: true,
			Transformer:           tr.transform,
		})
		if ts, ok := q.(cache.TransformingStore); !ok || ts.Transformer() == nil {
			t.Errorf("%T does not expose its Transformer (cache.TransformingStore)", q)
		}
		must(t, q.Add(obj("a", "1")))
		must(t, q.Update(obj("a", "2")))
		must(t, q.Delete(obj("a", "3")))
		must(t, q.Delete(obj("z", "1"))) // ignored: never reaches the transformer
		must(t, q.Replace([]any{obj("b", "1")}, "1"))
		must(t, q.Resync()) // k has a tombstone queued: skipped
		wantDrained(t, q,
			"{Added:a@1t Updated:a@2t Deleted:a@3t}",
			"{Replaced:b@1t}",
			"{Deleted:tombstone(ns/k,k@1)}")
		must(t, q.Resync()) // Sync carries the known object as is
		wantDrained(t, q, "{Sync:k@1}")
		if want := []string{"a@1", "a@2", "a@3", "b@1"}; !slices.Equal(tr.seen, want) {
			t.Errorf("transformer saw %v, want %v (once each, no tombstones, no Sync)", tr.seen, want)
		}
		boom := newDeltaFIFO(t, cache.DeltaFIFOOptions{Transformer: tr.failing})
		if err := boom.Add(obj("a", "1")); err == nil {
			t.Error("Add with a failing transformer succeeded")
		}
		wantEmpty(t, boom)
	}})

	props = append(props, suite.Property{Name: "ext-get-and-list", Skip: c.skipUnlessExt(), Run: func(t *testing.T) {
		// client-go v0.37 keeps these for its own tests only
		q := mk(t)
		g := suite.As[interface {
			cache.KeyListerGetter
			Get(obj any) (any, bool, error)
			List() []any
		}](t, q)
		must(t, q.Add(obj("a", "1")))
		must(t, q.Update(obj("a", "2")))
		must(t, q.Add(obj("b", "1")))
		got, exists, err := g.GetByKey(key("a"))
		if err != nil || !exists {
			t.Fatalf("GetByKey(a) = %v, %v", exists, err)
		}
		wantDeltas(t, got, "{Added:a@1 Updated:a@2}")
		got.(cache.Deltas)[0].Object = obj("mutated", "9") // a copy: the queue keeps its own
		if got, _, _ = g.Get(obj("a", "0")); describeOne(got) != "{Added:a@1 Updated:a@2}" {
			t.Errorf("Get(a) after mutating a copy = %s", describeOne(got))
		}
		if _, exists, _ := g.GetByKey(key("none")); exists {
			t.Error("GetByKey of an unqueued key: exists")
		}
		wantKeys(t, g.ListKeys(), key("a"), key("b"))
		var newest []string
		for _, o := range g.List() {
			newest = append(newest, describeOne(o))
		}
		wantKeys(t, newest, "a@2", "b@1")
		drain(t, q)
	}})

	props = append(props, suite.Property{Name: "ext-add-if-not-present", Skip: c.skipUnlessExt(), Run: func(t *testing.T) {
		q := mk(t)
		ap := addIfNotPresent(t, q)
		must(t, q.Add(obj("a", "1")))
		first := popOnce(q, nil).item
		must(t, q.Add(obj("a", "2")))
		must(t, ap(first)) // a has deltas again: left alone
		wantDeltas(t, popOnce(q, nil).item, "{Added:a@2}")
		must(t, ap(first)) // now it puts them back
		wantDrained(t, q, "{Added:a@1}")
		if err := ap(obj("a", "3")); err == nil {
			t.Error("AddIfNotPresent of a non-Deltas succeeded")
		}
	}})

	props = append(props, suite.Property{Name: "ext-err-requeue", Skip: c.skipUnlessExt(), Run: func(t *testing.T) {
		q := mk(t)
		must(t, q.Add(obj("a", "1")))
		popRequeued(t, q)
		wantDrained(t, q, "{Added:a@1}")
	}})

	props = append(props, suite.Property{Name: "popbatch-equals-pops", Skip: c.skipUnlessBatch(), Run: func(t *testing.T) { popBatchEqualsPops(t, newDeltaFIFO) }})
	props = append(props, suite.Property{Name: "hammer-producers-one-consumer", Run: func(t *testing.T) { deltaHammer(t, newDeltaFIFO) }})
	props = append(props, suite.Property{Name: "replace-races-pops", Run: func(t *testing.T) { replaceRacesPops(t, newDeltaFIFO) }})
	props = append(props, suite.Property{Name: "drives-a-client-go-controller", Run: func(t *testing.T) { drivesController(t, newDeltaFIFO, false) }})
	props = append(props, suite.Property{Name: "popbatch-synced-only-after-process-returns", Skip: c.skipUnlessBatch(), Run: func(t *testing.T) { popBatchSyncedAfterProcess(t, newDeltaFIFO) }})
	props = append(props, suite.Property{Name: "drives-a-client-go-controller-in-batches", Run: func(t *testing.T) { drivesController(t, newDeltaFIFO, true) }})
	return props
}

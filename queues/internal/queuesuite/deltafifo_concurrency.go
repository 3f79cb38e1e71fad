package queuesuite

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// deltaHammer: many producers, each owning its keys, write Added, Updated…
// and finally Deleted for every key while one consumer pops, keeping
// KnownObjects like an informer (so no deletion is ever ignored). Exact
// accounting: per key, the popped deltas concatenated are exactly the
// writes, in order — no delta lost, duplicated or reordered.
func deltaHammer(t *testing.T, newQ NewDeltaFIFO) {
	const producers, keysEach, versions = 8, 16, 30
	known := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	q := newQ(t, cache.DeltaFIFOOptions{KnownObjects: known})
	got := make(map[string][]string)
	consumerDone := consume(q, func(item any) error {
		ds := item.(cache.Deltas)
		for _, d := range ds {
			k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(d.Object)
			got[k] = append(got[k], string(d.Type)+":"+describeOne(d.Object))
		}
		return ApplyDeltas(known, ds)
	})
	hammer(t, q, producers, keysEach, versions, versions, consumerDone)
	for p := range producers {
		for k := range keysEach {
			name := hammerKey(p, k)
			want := make([]string, versions)
			for v := 1; v <= versions; v++ {
				typ := cache.Updated
				switch v {
				case 1:
					typ = cache.Added
				case versions:
					typ = cache.Deleted
				}
				want[v-1] = string(typ) + ":" + name + "@" + strconv.Itoa(v)
			}
			if !slices.Equal(got[key(name)], want) {
				t.Fatalf("%s: popped deltas\n%v\nwant\n%v", name, got[key(name)], want)
			}
		}
	}
}

// replaceRacesPops: one producer mixes watch events (Add, Update, Delete)
// with relists (Replace of the current truth) and Resyncs, while a consumer
// pops and maintains KnownObjects as an informer does. If a Replace ever
// computed its tombstones while a Pop's process function was halfway, or
// lost a delta, the consumer would end up believing in an object that no
// longer exists (or missing one that does). Checks: after the last event
// and a full drain, KnownObjects equals the truth; and per key, the
// versions of popped non-tombstone objects never go backwards.
func replaceRacesPops(t *testing.T, newQ NewDeltaFIFO) {
	const keys, ops = 24, 3000
	known := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	q := newQ(t, cache.DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: true})
	last := make(map[string]int) // consumer's newest version per key
	consumerDone := consume(q, func(item any) error {
		ds := item.(cache.Deltas)
		for _, d := range ds {
			o, ok := d.Object.(*metav1.PartialObjectMetadata)
			if !ok {
				continue // a tombstone carries an older object by design
			}
			v, _ := strconv.Atoi(o.ResourceVersion)
			if v < last[o.Name] {
				return errors.New(o.Name + ": version " + o.ResourceVersion + " popped after " + strconv.Itoa(last[o.Name]))
			}
			last[o.Name] = v
		}
		return ApplyDeltas(known, ds)
	})

	rng := rand.New(rand.NewPCG(7, 11))
	truth := make(map[int]*metav1.PartialObjectMetadata)
	version := 0
	next := func(i int) *metav1.PartialObjectMetadata {
		version++
		return obj(diffName(i), strconv.Itoa(version))
	}
	for range ops {
		var err error
		switch r := rng.IntN(20); {
		case r < 17:
			i := rng.IntN(keys)
			switch cur, present := truth[i]; {
			case !present:
				truth[i] = next(i)
				err = q.Add(truth[i])
			case r < 12:
				truth[i] = next(i)
				err = q.Update(truth[i])
			default:
				delete(truth, i)
				err = q.Delete(cur)
			}
		case r < 19:
			list := make([]any, 0, len(truth))
			for _, o := range truth {
				list = append(list, o)
			}
			err = q.Replace(list, strconv.Itoa(version))
		default:
			err = q.Resync()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	q.Close()
	if err := <-consumerDone; err != nil {
		t.Fatalf("consumer: %v", err)
	}
	want := make([]string, 0, len(truth))
	for _, o := range truth {
		want = append(want, describeOne(o))
	}
	var got []string
	for _, o := range known.List() {
		got = append(got, describeOne(o))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("after the last event, the consumer knows\n%v\nbut the truth is\n%v", got, want)
	}
}

// consume pops q until it is closed and drained, handing every item to fn
// inside the process function, and reports the first error.
func consume(q cache.Queue, fn func(item any) error) <-chan error {
	done := make(chan error, 1)
	go func() {
		for {
			_, err := q.Pop(func(item any, _ bool) error { return fn(item) })
			if errors.Is(err, cache.ErrFIFOClosed) {
				done <- nil
				return
			}
			if err != nil {
				done <- err
				// keep draining so producers never block on a full queue
				for {
					if _, err := q.Pop(func(any, bool) error { return nil }); errors.Is(err, cache.ErrFIFOClosed) {
						return
					}
				}
			}
		}
	}()
	return done
}

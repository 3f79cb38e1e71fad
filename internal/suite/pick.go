package suite

import (
	"math/rand/v2"
	"slices"
)

// DoneAny is a differential check's simulated worker finishing: it removes
// a random item from held (the items handed out and not yet done) and calls
// Done with it on every queue, candidate and reference alike. It reports
// false, doing nothing, when nothing is held.
func DoneAny[T any](rng *rand.Rand, held *[]T, qs ...interface{ Done(T) }) (T, bool) {
	if len(*held) == 0 {
		var zero T
		return zero, false
	}
	i := rng.IntN(len(*held))
	item := (*held)[i]
	*held = slices.Delete(*held, i, i+1)
	for _, q := range qs {
		q.Done(item)
	}
	return item, true
}

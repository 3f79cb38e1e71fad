package suite

import "slices"

// DoneAny is a differential check's simulated worker finishing: it removes
// an item of held (the items handed out and not yet done) that src picks,
// and calls Done with it on every queue, candidate and reference alike. It
// reports false, doing nothing and reading no choice, when nothing is held.
func DoneAny[T any](src *Ops, held *[]T, qs ...interface{ Done(T) }) (T, bool) {
	if len(*held) == 0 {
		var zero T
		return zero, false
	}
	i := src.Intn(len(*held))
	item := (*held)[i]
	*held = slices.Delete(*held, i, i+1)
	for _, q := range qs {
		q.Done(item)
	}
	return item, true
}

// Package freelist recycles the slots of an index-addressed table: keyq's
// key slots and priorityq's item records both live in a slice addressed by
// int32, so that references survive growth and cost no pointer for the GC,
// and both reuse freed indices before growing.
package freelist

// Alloc returns the index of a slot of *slots for a new entry: the most
// recently freed one when *free holds any (LIFO, so it is likely still in
// cache), else a zero slot appended. The caller overwrites the slot; it
// pushes an index back on *free when the entry goes.
func Alloc[S any](slots *[]S, free *[]int32) int32 {
	if n := len(*free); n > 0 {
		i := (*free)[n-1]
		*free = (*free)[:n-1]
		return i
	}
	var zero S
	*slots = append(*slots, zero)
	return int32(len(*slots) - 1)
}

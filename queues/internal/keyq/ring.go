package keyq

// DefaultRingSize is the capacity of one ring of the lock-free queue when the
// caller does not choose one. Steady-state traffic (a Reflector's watch
// events) fits easily; a relist burst goes into further rings, dropped once
// drained.
const DefaultRingSize = 1024

// entry is one queued key: the slot's address and, in ring mode, the queue
// epoch it was queued in, so an entry that a queue reset (a FIFO's
// Replace) has cancelled is recognised when a Pop finds it afterwards.
type entry struct {
	slot  int32
	shard int32
	epoch uint32
}

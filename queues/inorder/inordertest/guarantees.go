package inordertest

import "github.com/queuelab/queuelab/internal/suite"

// Guarantees declares which of RealFIFO's modes an implementation offers;
// Run and Diff check exactly those modes and skip the others visibly. Order
// is never relaxed: every in-order FIFO hands events out in arrival order.
type Guarantees struct {
	// Atomic: the zero inorder.Options (no KnownObjects) build the
	// informers' queue.
	Atomic bool
	// PerObject: inorder.Options.KnownObjects builds client-go's non-atomic
	// mode.
	PerObject bool
	// LockWhileProcessing: inorder.Options.LockWhileProcessing is honoured
	// in atomic mode.
	LockWhileProcessing bool
}

const (
	noAtomic    = "[relaxed] no atomic mode"
	noPerObject = "[relaxed] no per-object mode (Options.KnownObjects)"
	noLocked    = "[relaxed] no LockWhileProcessing in atomic mode"
)

// atomicOnly and perObjectOnly are the Skip of a property of one mode.
func (g Guarantees) atomicOnly() string    { return suite.Unless(g.Atomic, noAtomic) }
func (g Guarantees) perObjectOnly() string { return suite.Unless(g.PerObject, noPerObject) }

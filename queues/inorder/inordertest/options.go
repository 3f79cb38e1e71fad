package inordertest

import (
	"time"

	"github.com/queuelab/queuelab/internal/suite"
	"github.com/queuelab/queuelab/internal/watchdog"
	"github.com/queuelab/queuelab/queues/inorder"
)

// Option adjusts a suite run to the modes the implementation declares.
type Option func(*config)

type config struct {
	atomic, perObject, lockWhileProcessing bool
	timeout                                time.Duration
}

func newConfig(opts []Option) config {
	c := config{atomic: true, perObject: true, lockWhileProcessing: true, timeout: watchdog.DefaultTimeout}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithoutAtomicMode declares that the implementation has no atomic mode (it
// requires Options.KnownObjects): the atomic-mode properties are skipped.
func WithoutAtomicMode() Option { return func(c *config) { c.atomic = false } }

// WithoutPerObjectMode declares that the implementation has no per-object
// mode (it rejects Options.KnownObjects): those properties are skipped.
func WithoutPerObjectMode() Option { return func(c *config) { c.perObject = false } }

// WithoutLockWhileProcessing declares that Options.LockWhileProcessing is
// rejected in atomic mode.
func WithoutLockWhileProcessing() Option { return func(c *config) { c.lockWhileProcessing = false } }

// WithTimeout sets each subtest's deadlock watchdog (default
// watchdog.DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// OptionsFor turns an entry's declared guarantees into suite options.
func OptionsFor(g inorder.Guarantees) []Option {
	var opts []Option
	if !g.Atomic {
		opts = append(opts, WithoutAtomicMode())
	}
	if !g.PerObject {
		opts = append(opts, WithoutPerObjectMode())
	}
	if !g.LockWhileProcessing {
		opts = append(opts, WithoutLockWhileProcessing())
	}
	return opts
}

const (
	noAtomic    = "[relaxed] no atomic mode"
	noPerObject = "[relaxed] no per-object mode (Options.KnownObjects)"
	noLocked    = "[relaxed] no LockWhileProcessing in atomic mode"
)

// atomicOnly and perObjectOnly are the Skip of a property of one mode.
func (c config) atomicOnly() string    { return suite.Unless(c.atomic, noAtomic) }
func (c config) perObjectOnly() string { return suite.Unless(c.perObject, noPerObject) }

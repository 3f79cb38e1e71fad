package stores

import (
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// Option configures a store at construction.
type Option func(*options)

type options struct {
	onError           func(error)
	emptyOnlyIndexers bool
}

func newOptions(opts []Option) options {
	o := options{onError: utilruntime.HandleError}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithErrorHandler sets the function that receives the errors of the
// cache.ThreadSafeStore write methods, which have no error result (Add,
// Update, Replace, Transaction): an *IndexError when an IndexFunc fails.
// The default, utilruntime.HandleError, logs them. The ...Checked methods
// return their errors instead and never call the handler.
func WithErrorHandler(h func(error)) Option {
	return func(o *options) {
		if h != nil {
			o.onError = h
		}
	}
}

// WithEmptyOnlyIndexers restores the rule of older client-go releases:
// AddIndexers on a store that already holds items fails with
// ErrLateIndexers instead of indexing the existing items.
func WithEmptyOnlyIndexers() Option {
	return func(o *options) { o.emptyOnlyIndexers = true }
}

// report hands a write's error (an IndexFunc failure, a failed
// transaction) to the error handler; nil reports nothing.
func (o *options) report(err error) {
	if err != nil {
		o.onError(err)
	}
}

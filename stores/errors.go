package stores

import (
	"errors"
	"fmt"
)

// IndexError reports that an IndexFunc failed for one object. client-go
// panics in this situation; the stores of this package reject the write
// instead, leaving the previous object and its index entries in place, and
// return or report an *IndexError.
type IndexError struct {
	// Key is the storage key of the object being written.
	Key string
	// Index is the name of the indexer whose IndexFunc failed.
	Index string
	// Err is the IndexFunc's error.
	Err error
}

// Error names the key and the index so that a log line alone identifies the
// object and the faulty indexer.
func (e *IndexError) Error() string {
	return fmt.Sprintf("unable to calculate an index entry for key %q on index %q: %v", e.Key, e.Index, e.Err)
}

// Unwrap exposes the IndexFunc's error to errors.Is and errors.As.
func (e *IndexError) Unwrap() error { return e.Err }

// errUnknownIndex mirrors client-go's message for an index name that was
// never registered, so callers matching on the text keep working.
func errUnknownIndex(name string) error {
	return fmt.Errorf("Index with name %s does not exist", name) //nolint:staticcheck // client-go's exact wording
}

// ErrLateIndexers is returned by AddIndexers on a non-empty store created
// with Options.EmptyOnlyIndexers.
var ErrLateIndexers = errors.New("cannot add indexers to a store that already has items")

// conflictError names the indexers that AddIndexers was asked to register a
// second time.
func conflictError(names []string) error {
	return fmt.Errorf("indexer conflict: %v", names)
}

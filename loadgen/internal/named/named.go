// Package named finds things by name in the load generator's lists
// (scenarios, informer kinds, queue kinds), so every list answers a
// mistyped name the same way: with the names it knows.
package named

import (
	"fmt"
	"strings"
)

// Names returns the name of every element of all, in order.
func Names[E any](all []E, name func(E) string) []string {
	names := make([]string, len(all))
	for i, e := range all {
		names[i] = name(e)
	}
	return names
}

// Lookup returns the element of all called want, or an error saying what
// kind of thing was unknown and listing the known names.
func Lookup[E any](what string, all []E, name func(E) string, want string) (E, error) {
	for _, e := range all {
		if name(e) == want {
			return e, nil
		}
	}
	var zero E
	return zero, fmt.Errorf("unknown %s %q (known: %s)", what, want, strings.Join(Names(all, name), ", "))
}

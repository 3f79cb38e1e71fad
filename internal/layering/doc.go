// Package layering holds the test that keeps the library apart from the
// lab: nothing a controller imports may depend on the lab's tooling.
package layering

// Package badinput pins what every queue and store family does with bad
// input — a nil object, an object without ObjectMeta, a failing key or index
// function, conflicting indexers, Done or Forget of an unknown item, calls
// after ShutDown, out-of-range delays and options — for the upstream
// implementation and every variant of the family's registry.
//
// Each family has one table-driven test whose cases table is also the source
// of docs/bad-input.md: a case states what upstream does and what the
// variants do, and its probe observes it on each implementation. Run
//
//	go test ./badinput -run TestBadInputDoc -update
//
// after changing a case to regenerate the document; the normal run fails
// while the document differs from the tables.
package badinput

// Package snapeval holds the measurement behind the choice of persistent
// map for stores.Snapshot (DESIGN.md, "The snapshot store"): the snapshot
// store's own CHAMP against the same MVCC layout built on
// hashicorp/go-immutable-radix v2 (the base of go-memdb) and on
// tidwall/btree's copy-on-write BTreeG. It has only benchmarks:
//
//	go test -run '^$' -bench . -benchmem ./bench/snapeval/
package snapeval

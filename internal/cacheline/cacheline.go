// Package cacheline holds the padding unit that keeps fields written by one
// side (a writer, a producer, a shard's lock) off the cache lines another
// side reads, so that a write does not take those lines away from every
// reader (false sharing).
//
// Two ways of padding are used across the lab:
//   - An array element (a shard) is padded to whole units, the padding
//     computed from unsafe.Sizeof of what it follows as
//     (Size - size%Size) % Size, so that the stride stays a multiple of Size
//     when fields change, with one exception: a core that is already a
//     multiple of Size gets a zero-length pad, and Go pads a struct ending
//     in a zero-size field by another word, so the stride stops being one.
//     Every such element type therefore checks its stride at compile time
//     (var _ = [1]struct{}{}[unsafe.Sizeof(elem)%Size]), which fails in
//     exactly that case or when the padding is miscomputed.
//   - Within one struct, whose address need not fall on a unit boundary,
//     two groups of fields are separated by a whole Size of padding: then no
//     two of their bytes can share a unit wherever the struct lands,
//     whatever the groups hold. Where the group before the padding is a
//     single aligned 8-byte word (mpmc's positions, workq.Ring's counts),
//     Size-8 bytes of padding suffice: the word ends where the padding
//     starts, so no byte after the padding shares the word's unit.
//
// Which fields are kept apart, and why, belongs at each padded struct in
// the package that pads it; stores/layout_test.go pins the stores' layout.
package cacheline

// Size is the padding unit in bytes: 128, not the 64-byte line most x86 and
// arm64 cores have. x86's adjacent-line prefetcher fetches 64-byte lines in
// 128-byte-aligned pairs, and some arm64 cores (Apple's among them) have
// 128-byte lines; padding to 128 keeps two independently written fields from
// sharing a prefetched pair or a line on either. It is one value for every
// GOARCH, unlike the runtime's internal/cpu.CacheLinePadSize (64 on x86).
const Size = 128

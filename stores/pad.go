package stores

// cacheLine is the unit that fields written by one side (a writer, a shard's
// lock) are kept apart by from fields another side reads: 128 bytes, two
// 64-byte lines, because x86's adjacent-line prefetcher pairs them. The
// same value as queues/workq's and internal/mpmc's, which keep theirs
// unexported.
//
// Two ways of padding, as in those packages:
//   - An array element (a shard) is padded to whole lines, the padding
//     computed from unsafe.Sizeof of what it follows as
//     (cacheLine - size%cacheLine) % cacheLine, so that the stride stays a
//     multiple of cacheLine when fields change.
//   - Within one struct, whose address need not fall on a line boundary,
//     two groups of fields are separated by a whole cacheLine of padding:
//     then no two of their bytes can share a line wherever the struct
//     lands, whatever the groups hold.
//
// layout_test.go checks both.
const cacheLine = 128

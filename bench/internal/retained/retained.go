// Package retained measures the heap a benchmark's data structure holds
// on to, the one method the store benchmarks and the snapshot-store
// evaluation report B/obj by, so their figures stay comparable.
package retained

import (
	"runtime"
	"testing"
)

// PerObject reports, as B/obj, the heap the value build returns retains per
// object beyond what was live before it was built: live heap after a GC
// with it built, minus live heap after a GC before, averaged over b's
// iterations and divided by objects. Whatever build is given (its inputs,
// built before the first measurement) counts as already live.
func PerObject(b *testing.B, objects int, build func() any) {
	var retained float64
	var ms runtime.MemStats
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		v := build()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		retained += float64(ms.HeapAlloc) - float64(before)
		runtime.KeepAlive(v)
	}
	b.ReportMetric(retained/float64(b.N)/float64(objects), "B/obj")
}

package metrics

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"time"
)

// runtime/metrics names read by Snapshot and the sampler.
const (
	mAllocObjects = "/gc/heap/allocs:objects"
	mAllocBytes   = "/gc/heap/allocs:bytes"
	mGCCPU        = "/cpu/classes/gc/total:cpu-seconds"
	mTotalCPU     = "/cpu/classes/total:cpu-seconds"
	mGCPauses     = "/sched/pauses/total/gc:seconds"
	mHeapObjects  = "/memory/classes/heap/objects:bytes"
	mLiveHeap     = "/gc/heap/live:bytes"
)

// Snapshot is the process's cumulative runtime counters at one instant.
type Snapshot struct {
	Allocs, AllocBytes uint64
	GCCPU, TotalCPU    float64 // seconds
	GCPause            float64 // seconds, summed from the pause histogram
}

// ReadSnapshot reads the cumulative counters.
func ReadSnapshot() Snapshot {
	s := []metrics.Sample{{Name: mAllocObjects}, {Name: mAllocBytes}, {Name: mGCCPU}, {Name: mTotalCPU}, {Name: mGCPauses}}
	metrics.Read(s)
	return Snapshot{
		Allocs:     s[0].Value.Uint64(),
		AllocBytes: s[1].Value.Uint64(),
		GCCPU:      s[2].Value.Float64(),
		TotalCPU:   s[3].Value.Float64(),
		GCPause:    histogramSum(s[4].Value.Float64Histogram()),
	}
}

// histogramSum approximates a runtime/metrics histogram's total from its
// bucket midpoints (the runtime keeps no exact sum of pauses).
func histogramSum(h *metrics.Float64Histogram) float64 {
	var sum float64
	for i, n := range h.Counts {
		if n == 0 {
			continue
		}
		// The edge buckets are open-ended: use their finite bound.
		lo, hi := max(h.Buckets[i], 0), h.Buckets[i+1]
		if math.IsInf(hi, 1) {
			hi = lo
		}
		sum += float64(n) * (lo + hi) / 2
	}
	return sum
}

// Usage is what happened between two snapshots.
type Usage struct {
	Allocs, AllocBytes uint64
	// GCCPUFraction is GC CPU time over all CPU time the runtime accounted.
	GCCPUFraction float64
	GCPause       time.Duration
}

// Since returns the usage from prev to s.
func (s Snapshot) Since(prev Snapshot) Usage {
	u := Usage{
		Allocs:     s.Allocs - prev.Allocs,
		AllocBytes: s.AllocBytes - prev.AllocBytes,
		GCPause:    time.Duration((s.GCPause - prev.GCPause) * float64(time.Second)),
	}
	if total := s.TotalCPU - prev.TotalCPU; total > 0 {
		u.GCCPUFraction = (s.GCCPU - prev.GCCPU) / total
	}
	return u
}

// LiveHeap runs a full GC and returns the bytes it found live: what the
// process retains, without garbage.
func LiveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: mLiveHeap}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// HeapObjects returns the bytes currently occupied by heap objects, live or
// not yet swept: the sampler's notion of heap in use.
func HeapObjects() uint64 {
	s := []metrics.Sample{{Name: mHeapObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// ResetPeakRSS resets the kernel's peak resident set size (VmHWM) for this
// process, so PeakRSS measures one run and not the whole process; it
// reports false where the kernel does not allow it.
func ResetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// PeakRSS returns VmHWM from /proc/self/status in bytes (false if
// unavailable).
func PeakRSS() (uint64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("VmHWM:")) {
			continue
		}
		f := bytes.Fields(line[len("VmHWM:"):])
		if len(f) < 1 {
			return 0, false
		}
		kb, err := strconv.ParseUint(string(f[0]), 10, 64)
		return kb * 1024, err == nil
	}
	return 0, false
}

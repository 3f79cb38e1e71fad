package metrics

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
)

// Profiles names the pprof files to write for a run ("" skips one).
type Profiles struct {
	CPU, Mem, Mutex, Block string
}

// Any reports whether any profile is requested.
func (p Profiles) Any() bool { return p.CPU != "" || p.Mem != "" || p.Mutex != "" || p.Block != "" }

// WithSuffix inserts ".<suffix>" before each file's extension, so several
// runs in one invocation write separate profiles.
func (p Profiles) WithSuffix(suffix string) Profiles {
	add := func(path string) string {
		if path == "" {
			return ""
		}
		ext := filepath.Ext(path)
		return strings.TrimSuffix(path, ext) + "." + suffix + ext
	}
	return Profiles{CPU: add(p.CPU), Mem: add(p.Mem), Mutex: add(p.Mutex), Block: add(p.Block)}
}

// Start begins the requested profiles; the returned stop writes them. Mutex
// and block profiling are enabled only for the duration (they cost on the
// hot path) and sample every contention event.
func (p Profiles) Start() (stop func() error, err error) {
	var cpu *os.File
	if p.CPU != "" {
		if cpu, err = os.Create(p.CPU); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err = pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	if p.Mutex != "" {
		runtime.SetMutexProfileFraction(1)
	}
	if p.Block != "" {
		runtime.SetBlockProfileRate(1)
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if p.Mem != "" {
			runtime.GC()
			errs = append(errs, writeProfile("heap", p.Mem))
		}
		if p.Mutex != "" {
			errs = append(errs, writeProfile("mutex", p.Mutex))
			runtime.SetMutexProfileFraction(0)
		}
		if p.Block != "" {
			errs = append(errs, writeProfile("block", p.Block))
			runtime.SetBlockProfileRate(0)
		}
		return errors.Join(errs...)
	}, nil
}

func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

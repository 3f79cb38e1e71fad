package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/google/pprof/profile"

	"github.com/queuelab/queuelab/internal/lab/profsum"
)

const profileUsage = `usage: queuelab profile [flags] PROFILE...

Summarises pprof profiles (go test -cpuprofile, -memprofile, -mutexprofile,
-blockprofile): the top functions by flat and cumulative cost and, for mutex
and block profiles, the contended call sites, i.e. the lock or wait and the
code that called it. 'make profile' writes all four for one benchmark.

flags:
`

func runProfile(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, profileUsage); fs.PrintDefaults() }
	top := fs.Int("top", 12, "entries per list")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no profiles given")
	}
	if *top <= 0 {
		return fmt.Errorf("--top %d: want a positive count", *top)
	}
	for _, path := range fs.Args() {
		s, err := summarizeFile(path, *top)
		if err != nil {
			return err
		}
		if err := profsum.Write(stdout, path, s); err != nil {
			return err
		}
	}
	return nil
}

func summarizeFile(path string, top int) (*profsum.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s, err := profsum.Summarize(p, top)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

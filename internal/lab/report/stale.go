package report

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxCommits is how many of the commits that make a family stale its
// section names; the rest are a git log away.
const maxCommits = 3

// Staleness says whether the code a family measures changed after the
// commit its raw file was measured at: a number that no longer describes
// the code must say so where it is quoted.
type Staleness struct {
	// Commits are the commits after the raw file's that touch the family's
	// code, newest first (full hashes).
	Commits []string
	// Unknown is why staleness could not be decided ("" when it was): a
	// raw file without a commit, or one not in this history.
	Unknown string
}

// Stale reports whether the family's numbers predate its code, or may.
func (s Staleness) Stale() bool { return len(s.Commits) > 0 || s.Unknown != "" }

// Mark is the short mark the headline and tables carry ("" when fresh).
func (s Staleness) Mark() string {
	if !s.Stale() {
		return ""
	}
	return "**stale**"
}

// Why explains the mark in a sentence.
func (s Staleness) Why(commit string) string {
	switch {
	case s.Unknown != "":
		return fmt.Sprintf("**Stale:** %s, so these numbers may not describe the code.", s.Unknown)
	case len(s.Commits) > 0:
		var shas []string
		for i, c := range s.Commits {
			if i == maxCommits {
				shas = append(shas, "…")
				break
			}
			shas = append(shas, code(shortSHA(c)))
		}
		verb := "touch"
		if len(s.Commits) == 1 {
			verb = "touches"
		}
		return fmt.Sprintf("**Stale:** %s after %s %s the code it measures (%s): re-run it.",
			plural(len(s.Commits), "commit"), code(shortSHA(commit)), verb, strings.Join(shas, ", "))
	}
	return ""
}

// codeIndex maps each family to the files whose history decides whether
// its raw file is stale: the benchmark file that defines it and every
// package of the repository that file imports, directly or through other
// packages of the repository (their non-test Go files). Families defined
// nowhere in the benchmark sources (load runs) get every file any
// benchmark's code comprises.
type codeIndex struct {
	repo    string
	modPath string
	byName  map[string][]string // family name → pathspecs
	all     []string
}

// newCodeIndex reads the module path of the go.mod at the top of the git
// work tree that holds dir, and the imports of every benchmark file in
// benchDir.
func newCodeIndex(dir, benchDir string) (*codeIndex, error) {
	ix := &codeIndex{repo: dir, byName: make(map[string][]string)}
	top, err := ix.output("rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("deciding which results are stale: %w", err)
	}
	ix.repo = strings.TrimSpace(top)
	mod, err := os.ReadFile(filepath.Join(ix.repo, "go.mod"))
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(mod))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			ix.modPath = strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	if ix.modPath == "" {
		return nil, fmt.Errorf("%s: no module line", filepath.Join(ix.repo, "go.mod"))
	}
	if benchDir == "" {
		return ix, nil
	}
	if benchDir, err = filepath.Abs(benchDir); err != nil {
		return nil, err
	}
	if benchDir, err = filepath.EvalSymlinks(benchDir); err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(benchDir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	closure := make(map[string][]string) // package dir → its transitive package dirs
	fset := token.NewFileSet()
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		var benches []string
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Benchmark") {
				benches = append(benches, strings.TrimPrefix(fn.Name.Name, "Benchmark"))
			}
		}
		if len(benches) == 0 {
			continue
		}
		rel, err := filepath.Rel(ix.repo, p)
		if err != nil {
			return nil, err
		}
		specs := []string{filepath.ToSlash(rel)}
		for _, dir := range ix.deps(f, closure) {
			specs = append(specs, ":(glob)"+dir+"/*.go", ":(exclude,glob)"+dir+"/*_test.go")
		}
		for _, b := range benches {
			ix.byName[b] = specs
		}
		for _, s := range specs {
			if !slices.Contains(ix.all, s) {
				ix.all = append(ix.all, s)
			}
		}
	}
	return ix, nil
}

// deps returns the repository's package directories f imports, directly
// or not, sorted.
func (ix *codeIndex) deps(f *ast.File, closure map[string][]string) []string {
	seen := make(map[string]bool)
	var visit func(dir string)
	visit = func(dir string) {
		if seen[dir] {
			return
		}
		seen[dir] = true
		if _, done := closure[dir]; !done {
			closure[dir] = ix.imports(dir)
		}
		for _, d := range closure[dir] {
			visit(d)
		}
	}
	for _, d := range ix.local(f) {
		visit(d)
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// imports returns the repository directories imported by the non-test Go
// files in dir (relative to the repository, slash-separated).
func (ix *codeIndex) imports(dir string) []string {
	paths, _ := filepath.Glob(filepath.Join(ix.repo, filepath.FromSlash(dir), "*.go"))
	var out []string
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			continue // not this package's to judge: the build says what is wrong
		}
		for _, d := range ix.local(f) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// local returns the directories of f's imports that are in the repository.
func (ix *codeIndex) local(f *ast.File) []string {
	var out []string
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		if rest, ok := strings.CutPrefix(p, ix.modPath+"/"); ok {
			out = append(out, path.Clean(rest))
		}
	}
	return out
}

// staleness decides whether the code of family name changed in a commit
// after commit (a raw file's "commit:" header, possibly "-dirty") that
// HEAD reaches.
func (ix *codeIndex) staleness(name, commit string) Staleness {
	specs, ok := ix.byName[name]
	if !ok {
		specs = ix.all
	}
	if len(specs) == 0 {
		return Staleness{}
	}
	sha := strings.TrimSuffix(commit, "-dirty")
	if sha == "" {
		return Staleness{Unknown: "its raw file names no commit"}
	}
	if _, err := ix.output("merge-base", "--is-ancestor", sha, "HEAD"); err != nil {
		return Staleness{Unknown: "its commit " + code(shortSHA(sha)) + " is not in this branch's history"}
	}
	out, err := ix.output(append([]string{"log", "--format=%H", sha + "..HEAD", "--"}, specs...)...)
	if err != nil {
		return Staleness{Unknown: "git log failed: " + err.Error()}
	}
	return Staleness{Commits: strings.Fields(out)}
}

// output runs git in the work tree and returns what it prints.
func (ix *codeIndex) output(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", ix.repo}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

package layering_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/queuelab/queuelab"

// buildingBlocks are the lab's internal packages a library package or an
// exported suite may use: data structures and test scaffolding, none of
// which pulls in the lab's tooling.
var buildingBlocks = []string{
	"internal/cacheline", "internal/deque", "internal/freelist", "internal/mpmc", "internal/shard",
	"internal/watchdog", "internal/testobj", "internal/suite",
}

// libraryRoots are the trees a controller imports: the queue and store
// families, their exported conformance suites and the internal packages
// they share.
var libraryRoots = []string{"queues", "stores", "informer", "guarantee"}

// TestLibraryLayering: nothing a controller imports (queues/..., stores/...,
// their exported suites included) may depend, directly or through another
// package of the module, on the lab's tooling — the report, benchmark
// comparison and profile code under internal/, loadgen, bench or cmd — so
// that an importer's module graph and binary stay free of it. The rule is
// an allow-list, so new tooling is kept out without editing this test.
func TestLibraryLayering(t *testing.T) {
	root := moduleRoot(t)
	imports := moduleImports(t, root)
	allowed := func(pkg string) bool {
		if slices.Contains(buildingBlocks, pkg) {
			return true
		}
		for _, r := range libraryRoots {
			if pkg == r || strings.HasPrefix(pkg, r+"/") {
				return true
			}
		}
		return false
	}
	for pkg := range imports {
		if !allowed(pkg) {
			continue
		}
		// Walk pkg's module-internal imports, remembering how each was
		// reached, so a violation names its path.
		via := map[string]string{pkg: ""}
		queue := []string{pkg}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, dep := range imports[p] {
				if _, seen := via[dep]; seen {
					continue
				}
				via[dep] = p
				if !allowed(dep) {
					t.Errorf("%s imports %s (via %s): library packages and exported suites may use only %v and each other",
						pkg, dep, chain(via, dep), buildingBlocks)
					continue
				}
				queue = append(queue, dep)
			}
		}
	}
}

// chain renders how dep was reached from the package the walk started at.
func chain(via map[string]string, dep string) string {
	var path []string
	for p := dep; p != ""; p = via[p] {
		path = append(path, p)
	}
	slices.Reverse(path)
	return strings.Join(path, " → ")
}

// moduleRoot finds the directory holding go.mod above the test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// moduleImports maps every package of the module (as a path relative to
// the module) to the module packages its non-test files import. Nested
// modules (a go.mod below the root) are not part of it.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	imports := make(map[string][]string)
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		for _, spec := range f.Imports {
			ip, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			if dep, ok := strings.CutPrefix(ip, module+"/"); ok && !slices.Contains(imports[pkg], dep) {
				imports[pkg] = append(imports[pkg], path.Clean(dep))
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports["queues/workq"]) == 0 {
		t.Fatal("found no imports of queues/workq: the walk missed the module")
	}
	return imports
}

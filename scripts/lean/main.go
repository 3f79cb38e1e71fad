// Command lean shows what a controller pays in its module graph for
// importing queuelab. For each scratch module below it writes a go.mod that
// requires queuelab through replace lines to this checkout and a file that
// imports what an importer would, runs go mod tidy, go build and go mod
// graph with GOWORK=off, and prints the requirements of every queuelab
// module the graph reaches beside those of the upstream module it builds on
// (client-go for the root module, controller-runtime for priorityq).
//
// It fails when a queuelab module requires a module its upstream does not
// require at the same or a higher version, unless it is one of the few the
// module adds on purpose: such a requirement would raise an importer's
// versions above what the upstream alone gives it. It also fails when a
// forbidden module (the lab's tooling; for a client-go-only controller also
// controller-runtime and Prometheus) is anywhere in the graph and no
// upstream requires it itself. `make lean` runs it from the repository
// root.
//
// The scratch go.sum starts as the union of the checkout's go.sum files, so
// after the first run the check needs only the module cache.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

const (
	rootModule        = "github.com/queuelab/queuelab"
	priorityqModule   = rootModule + "/queues/priorityq"
	clientGo          = "k8s.io/client-go"
	controllerRuntime = "sigs.k8s.io/controller-runtime"
	// unversioned is the version a replaced, unpublished module is required at.
	unversioned = "v0.0.0-00010101000000-000000000000"
)

// upstreams: the modules each queuelab module builds on. A queuelab module
// may require what one of its upstreams requires, at no higher version, the
// upstreams themselves and the modules in additions; nothing else.
var upstreams = map[string][]string{
	rootModule:      {clientGo},
	priorityqModule: {controllerRuntime, rootModule},
}

// additions are what a queuelab module requires beyond its upstreams, on
// purpose: priorityq's lock-free map.
var additions = map[string][]string{priorityqModule: {"github.com/puzpuzpuz/xsync/v4"}}

// labTooling is what the lab's modules (internal/lab, loadgen, bench, cmd)
// need and no importer should inherit: charts, profiles, benchmark
// statistics, latency histograms and the progress bar.
var labTooling = []string{
	"gonum.org/v1", "github.com/google/pprof", "golang.org/x/perf",
	"github.com/HdrHistogram", "github.com/schollz/progressbar",
}

// scratch is one importer: the packages it imports and the module path
// prefixes that must not reach its module graph.
type scratch struct {
	name      string
	imports   []string
	requires  []string
	forbidden []string
}

func main() {
	root, err := os.Getwd()
	if err == nil {
		err = checkRoot(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lean:", err)
		os.Exit(2)
	}
	scratches := []scratch{{
		name:      "workq+informer",
		imports:   []string{rootModule + "/queues/workq", rootModule + "/informer"},
		requires:  []string{rootModule},
		forbidden: slices.Concat([]string{controllerRuntime, "github.com/prometheus/client_golang"}, labTooling),
	}, {
		name:      "priorityq",
		imports:   []string{priorityqModule},
		requires:  []string{priorityqModule},
		forbidden: labTooling,
	}}
	var verdicts []string
	failed := false
	for _, s := range scratches {
		verdict, err := s.check(root)
		if err != nil {
			failed = true
			verdict = fmt.Sprintf("lean %s: FAIL: %v", s.name, err)
		}
		verdicts = append(verdicts, verdict)
	}
	fmt.Println()
	for _, v := range verdicts {
		fmt.Println(v)
	}
	if failed {
		os.Exit(1)
	}
}

// checkRoot refuses to run anywhere but the repository root, where the
// replace lines must point.
func checkRoot(root string) error {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(data, []byte("module "+rootModule+"\n")) {
		return fmt.Errorf("%s is not the root of %s; run it from there (make lean)", root, rootModule)
	}
	return nil
}

// check builds the scratch module, prints what the queuelab modules in its
// graph require, and returns the verdict line, or an error naming every
// violation.
func (s scratch) check(root string) (string, error) {
	fmt.Printf("== scratch module importing %s\n", strings.Join(s.imports, ", "))
	dir, err := os.MkdirTemp("", "lean-"+strings.ReplaceAll(s.name, "+", "-")+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := s.write(root, dir); err != nil {
		return "", err
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "./..."}} {
		if _, err := goCmd(dir, args...); err != nil {
			return "", err
		}
	}
	out, err := goCmd(dir, "mod", "graph")
	if err != nil {
		return "", err
	}
	g := parseGraph(out)
	var problems, reached []string
	// Only a module the scratch requires is compared with its upstreams: the
	// graph prunes the go.mod of an upstream version that MVS does not
	// select, so a module reached through another is compared by the
	// scratch module that requires it.
	for _, m := range s.requires {
		problems = append(problems, printRequirements(g, m)...)
		var ups []string
		for _, up := range upstreams[m] {
			ups = append(ups, display(up, g.requires[m+"@"+unversioned][up]))
		}
		reached = append(reached, fmt.Sprintf("every requirement of %s but %s is one of %s's, at the same or an older version",
			m, strings.Join(slices.Concat(upstreams[m], additions[m]), ", "), strings.Join(ups, " or ")))
	}
	for _, m := range []string{rootModule, priorityqModule} {
		if g.modules[m] && !slices.Contains(s.requires, m) {
			fmt.Printf("  %s is reached too; its %d requirements are compared by the scratch module that requires it\n", m, len(g.requires[m+"@"+unversioned]))
		}
	}
	fmt.Printf("  forbidden modules among the graph's %d:\n", len(g.modules))
	var exempt []string
	for _, f := range s.forbidden {
		found := g.matching(f)
		if len(found) == 0 {
			fmt.Printf("    %-36s none\n", f)
		}
		for _, m := range found {
			if by := g.upstreamRequiring(m); by != "" {
				fmt.Printf("    %-36s %s, required by %s itself\n", f, m, by)
				exempt = append(exempt, m+" (required by "+by+")")
				continue
			}
			fmt.Printf("    %-36s FOUND %s\n", f, m)
			problems = append(problems, m+" is in the graph")
		}
	}
	selected, err := goCmd(dir, "list", "-m", "-f", "{{.Path}}@{{.Version}}", "all")
	if err != nil {
		return "", err
	}
	shown := []string{clientGo, "k8s.io/apimachinery", "k8s.io/api", "k8s.io/klog/v2", "k8s.io/utils", controllerRuntime}
	var builds []string
	for _, mv := range strings.Fields(selected) {
		if p, _, _ := strings.Cut(mv, "@"); slices.Contains(shown, p) {
			builds = append(builds, mv)
		}
	}
	fmt.Printf("  the importer builds with: %s\n", strings.Join(builds, " "))
	if len(problems) > 0 {
		return "", errors.New(strings.Join(problems, "; "))
	}
	forbidden := "no forbidden module in the graph"
	if len(exempt) > 0 {
		forbidden = "no forbidden module in the graph but " + strings.Join(exempt, ", ")
	}
	return fmt.Sprintf("lean %s: OK: %s; %s", s.name, strings.Join(reached, "; "), forbidden), nil
}

// write lays out the scratch module: go.mod with replace lines to this
// checkout, a file importing s.imports, and a go.sum seeded from the
// checkout's so that tidy needs only the module cache.
func (s scratch) write(root, dir string) error {
	var mod strings.Builder
	fmt.Fprintf(&mod, "module example.com/controller\n\ngo %s\n\n", goDirective(root))
	for _, r := range s.requires {
		fmt.Fprintf(&mod, "require %s %s\n", r, unversioned)
	}
	fmt.Fprintf(&mod, "\nreplace %s => %s\n\nreplace %s => %s\n", rootModule, root, priorityqModule, filepath.Join(root, "queues", "priorityq"))
	var src strings.Builder
	src.WriteString("package controller\n\nimport (\n")
	for _, p := range s.imports {
		fmt.Fprintf(&src, "\t_ %q\n", p)
	}
	src.WriteString(")\n")
	var sum []byte
	for _, f := range []string{"go.sum", "queues/priorityq/go.sum"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return err
		}
		sum = append(sum, data...)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(mod.String()), "controller.go": []byte(src.String()), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// printRequirements lists queuelab module m's requirements beside the
// highest version at which one of its upstreams, at the version m requires,
// requires the same module. It returns a problem for every requirement that
// is neither an upstream nor an addition and that no upstream has at the
// same or a higher version.
func printRequirements(g graph, m string) []string {
	reqs := g.requires[m+"@"+unversioned]
	var ups []string
	for _, up := range upstreams[m] {
		if reqs[up] == "" {
			return []string{m + " does not require " + up}
		}
		ups = append(ups, up+"@"+reqs[up])
	}
	var shown []string
	for _, up := range upstreams[m] {
		shown = append(shown, display(up, reqs[up]))
	}
	fmt.Printf("  %s requires (%d), beside the highest version %s require:\n", m, len(reqs), strings.Join(shown, " or "))
	var problems []string
	for _, p := range sortedKeys(reqs) {
		theirs, by := "", ""
		for _, up := range ups {
			if v, ok := g.requires[up][p]; ok && (theirs == "" || compareVersions(v, theirs) > 0) {
				theirs, by = v, strings.Split(up, "@")[0]
			}
		}
		column := theirs + " (" + by + ")"
		switch {
		case slices.Contains(upstreams[m], p):
			column = "(upstream)"
		case slices.Contains(additions[m], p):
			column = "-  (added on purpose)"
		case theirs == "":
			column = "-  REQUIRED BY NO UPSTREAM"
			problems = append(problems, fmt.Sprintf("%s requires %s@%s, which none of %s does", m, p, reqs[p], strings.Join(ups, ", ")))
		case compareVersions(theirs, reqs[p]) < 0:
			column += "  LOWER THAN OURS"
			problems = append(problems, fmt.Sprintf("%s requires %s@%s, above %s's %s", m, p, reqs[p], by, theirs))
		}
		fmt.Printf("    %-45s %-40s %s\n", p, reqs[p], column)
	}
	return problems
}

// display names module path at version v, leaving out the placeholder
// version of a replaced queuelab module.
func display(path, v string) string {
	if v == unversioned {
		return path
	}
	return path + "@" + v
}

// graph is `go mod graph`, read as each module version's requirements.
type graph struct {
	requires map[string]map[string]string // "path@version" -> path -> version
	modules  map[string]bool              // every module path in the graph
}

func parseGraph(out string) graph {
	g := graph{requires: map[string]map[string]string{}, modules: map[string]bool{}}
	for line := range strings.Lines(out) {
		from, to, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		path, version, _ := strings.Cut(to, "@")
		if g.requires[from] == nil {
			g.requires[from] = map[string]string{}
		}
		g.requires[from][path] = version
		if path == "go" || path == "toolchain" {
			continue // a go line, not a module
		}
		fromPath, _, _ := strings.Cut(from, "@")
		g.modules[fromPath], g.modules[path] = true, true
	}
	return g
}

// matching lists the graph's modules that are prefix or live under it.
func (g graph) matching(prefix string) []string {
	var found []string
	for _, m := range sortedKeys(g.modules) {
		if m == prefix || strings.HasPrefix(m, prefix+"/") {
			found = append(found, m)
		}
	}
	return found
}

// upstreamRequiring names an upstream module version in the graph, as a
// queuelab module requires it, whose own go.mod requires module path p.
func (g graph) upstreamRequiring(p string) string {
	for _, m := range sortedKeys(upstreams) {
		for _, up := range upstreams[m] {
			if strings.HasPrefix(up, rootModule) {
				continue // queuelab exempts nothing of its own
			}
			v, ok := g.requires[m+"@"+unversioned][up]
			if _, requires := g.requires[up+"@"+v][p]; ok && requires {
				return up + "@" + v
			}
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// goDirective is the root module's go line, so the scratch module asks for
// no newer toolchain than the library does.
func goDirective(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err == nil {
		for line := range strings.Lines(string(data)) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
				return v
			}
		}
	}
	return "1.26.0"
}

// goCmd runs the go command ($GO, as make passes it, or go) in dir outside any workspace and returns its
// standard output; on failure the error carries its standard error.
func goCmd(dir string, args ...string) (string, error) {
	gobin := os.Getenv("GO")
	if gobin == "" {
		gobin = "go"
	}
	cmd := exec.Command(gobin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

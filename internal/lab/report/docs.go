package report

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
)

// benchDocs returns the first sentence of the doc comment of every
// Benchmark function in dir's Go files, by family name ("WorkQueue" for
// BenchmarkWorkQueue): the report describes a family in its author's
// words, kept next to the code that defines it, rather than from a list of
// names of its own. A missing dir describes nothing.
func benchDocs(dir string) (map[string]string, error) {
	out := make(map[string]string)
	if dir == "" {
		return out, nil
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var pkg doc.Package
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Doc == nil || !strings.HasPrefix(fn.Name.Name, "Benchmark") {
				continue
			}
			out[strings.TrimPrefix(fn.Name.Name, "Benchmark")] = pkg.Synopsis(fn.Doc.Text())
		}
	}
	return out, nil
}

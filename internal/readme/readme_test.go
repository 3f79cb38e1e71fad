package readme

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// snippetRef is the comment naming a Go block's source.
var snippetRef = regexp.MustCompile(`^<!--\s*snippet:\s*(\S+)\s*-->$`)

// block is one fenced Go block of the README and the file it claims to
// come from.
type block struct {
	line   int // 1-based line of the opening fence
	source string
	lines  []string
}

// goBlocks returns the README's ```go blocks with the snippet reference of
// the line above each (empty when there is none).
func goBlocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		blocks []block
		cur    *block
		prev   string
		n      int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		case strings.TrimSpace(line) == "```go":
			cur = &block{line: n}
			if m := snippetRef.FindStringSubmatch(strings.TrimSpace(prev)); m != nil {
				cur.source = m[1]
			}
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// significant returns the lines that carry code, trimmed: blank lines,
// whole-line comments (a snippet may explain itself in words its example
// does not use) and the "..." a snippet elides with are left out.
func significant(lines []string) []string {
	var out []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || l == "..." || strings.HasPrefix(l, "//") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// TestSnippetsAreExcerptsOfExamples checks that each README Go block's
// lines appear, in order, in the example file it names, so the README
// shows only code that compiles and runs in `go test`.
func TestSnippetsAreExcerptsOfExamples(t *testing.T) {
	root := filepath.Join("..", "..")
	blocks := goBlocks(t, filepath.Join(root, "README.md"))
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go blocks; the recipes are gone")
	}
	for _, b := range blocks {
		if b.source == "" {
			t.Errorf("README.md:%d: Go block without a <!-- snippet: path --> comment above it", b.line)
			continue
		}
		if !strings.HasSuffix(b.source, "_test.go") {
			t.Errorf("README.md:%d: snippet source %s is not an example test file", b.line, b.source)
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, b.source))
		if err != nil {
			t.Errorf("README.md:%d: %v", b.line, err)
			continue
		}
		src := significant(strings.Split(string(data), "\n"))
		i := 0
		for _, want := range significant(b.lines) {
			for i < len(src) && src[i] != want {
				i++
			}
			if i == len(src) {
				t.Errorf("README.md:%d: line %q is not in %s (after the lines before it)", b.line, want, b.source)
				break
			}
			i++
		}
	}
}

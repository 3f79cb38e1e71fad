package badinput

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/queuelab/queuelab/internal/lab/registry"
)

var update = flag.Bool("update", false, "rewrite docs/bad-input.md from the cases tables")

// badCase is one row of the bad-input table: what upstream does, what every
// variant does, and the probe that observes it. A probe returns a short
// phrase describing what it saw; the test compares that phrase with the one
// the row states for the implementation, so the document generated from the
// rows says exactly what the tests pin.
type badCase[E any] struct {
	name string
	// upstream is what the upstream implementation does.
	upstream string
	// variants is what every variant does; empty means the same as
	// upstream.
	variants string
	// deviates names variants whose current behaviour differs from
	// variants (or upstream), with what they do. Each entry is a known
	// deviation, listed in the document; when it is fixed the probe sees
	// the row's behaviour, this test fails, and the entry goes.
	deviates map[string]string
	// note explains the row in the document; no probe checks it.
	note  string
	probe func(t *testing.T, e E) string
}

// addGetter is the part of every work queue that worksOn calls.
type addGetter interface {
	Add(item string)
	Get() (item string, shutdown bool)
}

// worksOn adds item to q and takes the next one: a queue a bad call left
// working hands item straight back, and worksOn returns then, the probe's
// finding. Otherwise it says what Get handed out instead.
func worksOn(q addGetter, item, then string) string {
	q.Add(item)
	if got, _ := q.Get(); got != item {
		return "Get then hands out " + got
	}
	return then
}

// impl is one implementation a family's table runs on.
type impl[E any] struct {
	name     string
	upstream bool
	e        E
}

// entries lists a registry as implementations, upstream (named baseline)
// first.
func entries[N, G any](list registry.List[N, G], baseline string) []impl[registry.Entry[N, G]] {
	return implsOf(list, baseline, func(e registry.Entry[N, G]) (registry.Entry[N, G], bool) { return e, true })
}

// implsOf lists a registry as implementations, upstream (named baseline)
// first, each the value as makes of its entry; as leaves an entry out by
// returning false.
func implsOf[N, G, E any](list registry.List[N, G], baseline string, as func(registry.Entry[N, G]) (E, bool)) []impl[E] {
	var out []impl[E]
	for _, e := range list {
		if x, ok := as(e); ok {
			out = append(out, impl[E]{e.Name, e.Name == baseline, x})
		}
	}
	return out
}

// fresh is a probe of a queue open makes for an implementation, shut down
// by shut after it.
func fresh[E, Q any](open func(E) Q, shut func(Q), probe func(Q) string) func(*testing.T, E) string {
	return func(_ *testing.T, e E) string {
		q := open(e)
		defer shut(q)
		return probe(q)
	}
}

// family is one family's table as the document shows it.
type family struct {
	title string
	// impls names what the table ran on: upstream first.
	impls []string
	rows  []row
}

type row struct{ name, upstream, variants, note string }

// runCases runs every case on every implementation and returns the rows for
// the document.
func runCases[E any](t *testing.T, cases []badCase[E], impls []impl[E]) {
	t.Helper()
	for _, c := range cases {
		for _, im := range impls {
			t.Run(c.name+"/"+im.name, func(t *testing.T) {
				want := c.expect(im)
				got := observe(t, func() string { return c.probe(t, im.e) })
				if got != want {
					t.Errorf("%s on %s:\n got: %s\nwant: %s", c.name, im.name, got, want)
				}
			})
		}
	}
}

// expect is what c's row states for im.
func (c badCase[E]) expect(im impl[E]) string {
	switch {
	case im.upstream:
		return c.upstream
	case c.deviates[im.name] != "":
		return c.deviates[im.name]
	case c.variants != "":
		return c.variants
	default:
		return c.upstream
	}
}

// observe runs a probe, turning a panic that escapes it into an
// observation.
func observe(t *testing.T, probe func() string) (got string) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			got = "panics: " + fmt.Sprint(p)
		}
	}()
	return probe()
}

// panics runs f and returns "" or the panic's message.
func panics(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprint(p)
		}
	}()
	f()
	return ""
}

// describe turns a family's cases into document rows.
func describe[E any](title string, cases []badCase[E], impls []impl[E]) family {
	f := family{title: title}
	for _, im := range impls {
		f.impls = append(f.impls, im.name)
	}
	for _, c := range cases {
		v := c.variants
		if v == "" || v == c.upstream {
			v = "the same"
		}
		// Variants deviating alike share one entry, in registry order.
		var texts []string
		who := map[string][]string{}
		for _, im := range impls {
			if d := c.deviates[im.name]; d != "" {
				if who[d] == nil {
					texts = append(texts, d)
				}
				who[d] = append(who[d], im.name)
			}
		}
		if len(texts) == 1 && len(who[texts[0]]) == len(impls)-1 {
			v = "every variant (known deviation, being fixed): " + texts[0]
			texts = nil
		}
		for _, d := range texts {
			v += "; except **" + strings.Join(who[d], ", ") + "** (known deviation, being fixed): " + d
		}
		f.rows = append(f.rows, row{c.name, c.upstream, v, c.note})
	}
	return f
}

// families lists every family's table in document order.
func families() []family {
	return []family{workqFamily(), delayingFamily(), rateLimitingFamily(), priorityqFamily(),
		fifoFamily(), deltaFIFOFamily(), inorderFamily(), inorderPerObjectFamily(), storesFamily(), informerFamily()}
}

const docPath = "../../docs/bad-input.md"

// TestBadInputDoc checks that docs/bad-input.md is the document the cases
// tables generate (with -update, writes it).
func TestBadInputDoc(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`# What each implementation does with bad input

<!-- generated by bench/badinput (go test ./badinput -run TestBadInputDoc -update in bench/); do not edit -->

One row per case and family. "Upstream" is client-go's implementation
(controller-runtime's for the priority queues); "variants" are every other
entry of the family's list in the lab registry (` + "`internal/lab/registry`" + `),
each pinned by the same probe as upstream in bench/badinput. A variant may differ from upstream only
where upstream panics or corrupts its state: it then returns or reports an
error that says what is wrong, and applies nothing. A "known deviation,
being fixed" is what a variant does today where it should do what upstream
does; the test pins it too, and fails once the fix lands, so the row is
updated with it.
`)
	for _, f := range families() {
		ran := "`" + strings.Join(f.impls, "`, `") + "`"
		if len(f.impls) > 8 {
			ran = fmt.Sprintf("`%s` and the %d other entries of the registry", f.impls[0], len(f.impls)-1)
		}
		fmt.Fprintf(&b, "\n## %s\n\nRun on: %s.\n\n", f.title, ran)
		b.WriteString("| case | upstream | variants | note |\n|---|---|---|---|\n")
		for _, r := range f.rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(r.name), cell(r.upstream), cell(r.variants), cell(r.note))
		}
	}
	path := filepath.FromSlash(docPath)
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./badinput -run TestBadInputDoc -update in bench/)", err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Errorf("%s is out of date with the cases tables: run go test ./badinput -run TestBadInputDoc -update in bench/", docPath)
	}
}

// cell escapes a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

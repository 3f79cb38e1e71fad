package stores

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type testEntry struct{ key, val string }

func (e testEntry) champKey() string { return e.key }

// TestChampModel checks champ against a Go map over random puts and
// removes, with full hashes and with hashes narrowed to a few bits (so
// that keys share whole paths and land in collision nodes), and checks
// that every earlier version still holds exactly what it held when it was
// taken: path copying never writes into a node another version can reach.
// Edits span one operation (every write copies published nodes), a few (as
// in a Transaction) and hundreds (as in a Replace, whose nodes grow in
// place).
func TestChampModel(t *testing.T) {
	for _, span := range []int{1, 7, 500} {
		for _, mask := range []uint64{^uint64(0), 0xff, 0x3, 0} {
			t.Run("span="+strconv.Itoa(span)+"/mask="+strconv.FormatUint(mask, 16), func(t *testing.T) {
				testChampModel(t, span, mask)
			})
		}
	}
}

func testChampModel(t *testing.T, span int, mask uint64) {
	defer func(m uint64) { champHashMask = m }(champHashMask)
	champHashMask = mask
	rng := rand.New(rand.NewPCG(1, mask))
	var m champ[testEntry]
	model := map[string]string{}
	type saved struct {
		m     champ[testEntry]
		model map[string]string
	}
	var versions []saved
	edit := uint64(0)
	for op := range 4000 {
		if op%span == 0 {
			edit++
			versions = append(versions, saved{m, maps.Clone(model)})
		}
		key := "k" + strconv.Itoa(rng.IntN(300))
		h := champHash(key)
		if rng.IntN(3) == 0 {
			_, removed := m.remove(edit, h, key)
			_, had := model[key]
			if removed != had {
				t.Fatalf("op %d: remove(%s) = %v, model has it: %v", op, key, removed, had)
			}
			delete(model, key)
			continue
		}
		val := strconv.Itoa(op)
		old, replaced := m.put(edit, h, testEntry{key, val})
		prev, had := model[key]
		if replaced != had || (had && old.val != prev) {
			t.Fatalf("op %d: put(%s) replaced %v (%q), model %v (%q)", op, key, replaced, old.val, had, prev)
		}
		model[key] = val
	}
	versions = append(versions, saved{m, model})
	for i, v := range versions {
		checkChamp(t, "version "+strconv.Itoa(i), v.m, v.model)
	}
}

func checkChamp(t *testing.T, what string, m champ[testEntry], model map[string]string) {
	t.Helper()
	if m.n != len(model) {
		t.Fatalf("%s: n = %d, want %d", what, m.n, len(model))
	}
	got := map[string]string{}
	m.all(func(e testEntry) bool {
		if _, dup := got[e.key]; dup {
			t.Fatalf("%s: key %s iterated twice", what, e.key)
		}
		got[e.key] = e.val
		return true
	})
	if !maps.Equal(got, model) {
		t.Fatalf("%s: content %v, want %v", what, got, model)
	}
	for _, key := range slices.Sorted(maps.Keys(model)) {
		if e, ok := m.get(champHash(key), key); !ok || e.val != model[key] {
			t.Fatalf("%s: get(%s) = %q, %v; want %q", what, key, e.val, ok, model[key])
		}
	}
	if _, ok := m.get(champHash("absent"), "absent"); ok {
		t.Fatalf("%s: get of an absent key succeeded", what)
	}
}

// TestChampCanonical: after removing all but one key, whatever the hashes,
// the trie shrinks back to a root holding that key inline (deletes pull a
// lone entry up into its parent), so lookups and scans do not keep walking
// emptied paths.
func TestChampCanonical(t *testing.T) {
	defer func(m uint64) { champHashMask = m }(champHashMask)
	for _, mask := range []uint64{^uint64(0), 0x3} {
		champHashMask = mask
		var m champ[testEntry]
		for i := range 200 {
			k := strconv.Itoa(i)
			m.put(1, champHash(k), testEntry{key: k})
		}
		for i := 1; i < 200; i++ {
			k := strconv.Itoa(i)
			m.remove(2, champHash(k), k)
		}
		if len(m.root.children) != 0 || len(m.root.entries) != 1 || m.root.entries[0].key != "0" {
			t.Errorf("mask %x: root has %d children and entries %v, want the one entry inline", mask, len(m.root.children), m.root.entries)
		}
	}
}

// TestBuildChamp: a bulk build holds exactly its entries and is the trie
// puts of the same entries build, node for node (collision lists, whose
// order is arrival order, as sets), with full and narrowed hashes; and a
// later edit's writes leave the built version as it was.
func TestBuildChamp(t *testing.T) {
	defer func(m uint64) { champHashMask = m }(champHashMask)
	for _, mask := range []uint64{^uint64(0), 0xfff, 0x3, 0} {
		for _, n := range []int{0, 1, 2, 33, 1000, 5000} {
			champHashMask = mask
			model := map[string]string{}
			var es []hashed[testEntry]
			var put champ[testEntry]
			for i := range n {
				k, v := "k"+strconv.Itoa(i), strconv.Itoa(i)
				model[k] = v
				es = append(es, hashed[testEntry]{champHash(k), testEntry{k, v}})
				put.put(1, champHash(k), testEntry{k, v})
			}
			what := "mask=" + strconv.FormatUint(mask, 16) + "/n=" + strconv.Itoa(n)
			built := buildChamp(1, es)
			checkChamp(t, what, built, model)
			if !sameTrie(built.root, put.root) {
				t.Fatalf("%s: the bulk build differs from the trie puts build", what)
			}
			later := built
			for i := range n / 2 {
				k := "k" + strconv.Itoa(2*i)
				later.remove(2, champHash(k), k)
				k = "new" + strconv.Itoa(i)
				later.put(2, champHash(k), testEntry{k, "new"})
				k = "k" + strconv.Itoa(2*i+1)
				later.put(2, champHash(k), testEntry{k, "changed"})
			}
			checkChamp(t, what+" after a later edit", built, model)
		}
	}
}

// sameTrie reports whether a and b have the same shape and entries.
func sameTrie(a, b *cnode[testEntry]) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.datamap != b.datamap || a.nodemap != b.nodemap || len(a.children) != len(b.children) {
		return false
	}
	byKey := func(x, y testEntry) int { return strings.Compare(x.key, y.key) }
	ea, eb := slices.Clone(a.entries), slices.Clone(b.entries)
	if a.datamap == 0 && a.nodemap == 0 { // a collision list
		slices.SortFunc(ea, byKey)
		slices.SortFunc(eb, byKey)
	}
	if !slices.Equal(ea, eb) {
		return false
	}
	for i := range a.children {
		if !sameTrie(a.children[i], b.children[i]) {
			return false
		}
	}
	return true
}

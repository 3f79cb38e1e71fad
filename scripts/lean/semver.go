package main

import (
	"cmp"
	"strings"
)

// compareVersions orders two module versions the way minimal version
// selection does: as semantic versions, build metadata (+incompatible)
// ignored, a pseudo-version being a prerelease of the version after its
// base. It returns -1, 0 or +1. The script stays on the standard library,
// so it carries this instead of golang.org/x/mod/semver.
func compareVersions(a, b string) int {
	coreA, preA := splitVersion(a)
	coreB, preB := splitVersion(b)
	for i := range coreA {
		if c := compareNumbers(coreA[i], coreB[i]); c != 0 {
			return c
		}
	}
	switch {
	case preA == preB:
		return 0
	case preA == "":
		return 1
	case preB == "":
		return -1
	}
	idsA, idsB := strings.Split(preA, "."), strings.Split(preB, ".")
	for i := 0; i < len(idsA) && i < len(idsB); i++ {
		if c := compareIdentifiers(idsA[i], idsB[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(idsA), len(idsB))
}

// splitVersion returns v's major, minor and patch ("0" where v omits them)
// and its prerelease.
func splitVersion(v string) (core [3]string, pre string) {
	v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "+")
	v, pre, _ = strings.Cut(v, "-")
	core = [3]string{"0", "0", "0"}
	for i, n := range strings.SplitN(v, ".", 3) {
		core[i] = n
	}
	return core, pre
}

// compareIdentifiers orders prerelease identifiers: numeric ones by value
// and before alphanumeric ones, which order by bytes.
func compareIdentifiers(a, b string) int {
	numA, numB := isNumber(a), isNumber(b)
	switch {
	case numA && numB:
		return compareNumbers(a, b)
	case numA:
		return -1
	case numB:
		return 1
	}
	return strings.Compare(a, b)
}

// compareNumbers orders decimal strings without leading zeros, of any
// length (a pseudo-version's timestamp overflows no int this way).
func compareNumbers(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

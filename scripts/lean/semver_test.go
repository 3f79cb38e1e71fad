package main

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestCompareVersions: the orderings make lean's verdict depend on, taken
// from real requirements (pseudo-versions, +incompatible, prereleases).
func TestCompareVersions(t *testing.T) {
	ascending := [][2]string{
		{"v0.36.6", "v0.37.0"},
		{"v0.37.0-rc.1", "v0.37.0"},
		{"v0.37.0-alpha.3", "v0.37.0-beta.0"},
		{"v0.37.0-rc.1", "v0.37.0-rc.10"},
		{"v0.9.1", "v0.10.0"},
		{"v1.0.0", "v1.0.1-0.20181226105442-5d4384ee4fb2"},
		{"v1.0.1-0.20181226105442-5d4384ee4fb2", "v1.0.1"},
		{"v0.0.0-20260626114624-be93311217bd", "v0.0.0-20260707023825-cf1189d6abe3"},
		{"v0.0.0-20260707023825-cf1189d6abe3", "v0.1.0"},
		{"v1.36.11", "v1.36.12-0.20260120151049-f2248ac996af"},
		{"v2.0.1+incompatible", "v2.0.2"},
		{"v1.0.0-1", "v1.0.0-a"},
	}
	for _, p := range ascending {
		if got := compareVersions(p[0], p[1]); got != -1 {
			t.Errorf("compareVersions(%s, %s) = %d, want -1", p[0], p[1], got)
		}
		if got := compareVersions(p[1], p[0]); got != 1 {
			t.Errorf("compareVersions(%s, %s) = %d, want 1", p[1], p[0], got)
		}
	}
	for _, v := range []string{"v0.37.0", "v2.0.1+incompatible", "v0.0.0-20260626114624-be93311217bd"} {
		if got := compareVersions(v, v); got != 0 {
			t.Errorf("compareVersions(%s, %s) = %d, want 0", v, v, got)
		}
	}
	if got := compareVersions("v2.0.1+incompatible", "v2.0.1"); got != 0 {
		t.Errorf("build metadata must not order versions: got %d", got)
	}
}

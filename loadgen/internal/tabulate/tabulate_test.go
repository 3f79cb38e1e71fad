package tabulate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type run struct {
	group, impl string
	base        bool
	v           float64
}

func TestGroupsPutsTheBaselineFirst(t *testing.T) {
	runs := []run{{"a", "x", false, 1}, {"a", "base", true, 2}, {"b", "y", false, 3}, {"a", "x", false, 5}, {"a", "x", false, 0}}
	gs := Groups(runs, func(r run) string { return r.group }, func(r run) string { return r.impl }, func(r run) bool { return r.base })
	assert.Len(t, gs, 2)
	assert.Equal(t, []string{"base", "x"}, []string{gs[0][0].Impl, gs[0][1].Impl})
	assert.Equal(t, "y", gs[1][0].Impl)
	m, ok := gs[0][1].Median(Positive(func(r run) float64 { return r.v }))
	assert.True(t, ok)
	assert.Equal(t, 3.0, m) // median of 1 and 5; the 0 is not measured
	m, ok = gs[0][1].Median(Always(func(r run) float64 { return r.v }))
	assert.True(t, ok)
	assert.Equal(t, 1.0, m)
	_, ok = Column[run]{}.Median(Always(func(r run) float64 { return r.v }))
	assert.False(t, ok)
}

func TestBenchValuesHaveNoExponent(t *testing.T) {
	for v, want := range map[float64]string{12345.678: "12346", 0.01234567: "0.01235", 2.5: "2.500", 3e9: "3000000000", 0: "0"} {
		assert.Equal(t, want, BenchValue(v), "%g", v)
	}
}

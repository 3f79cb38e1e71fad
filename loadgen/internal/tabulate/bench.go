package tabulate

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Direction says which way a metric improves; Neutral metrics (context,
// not a goal) get no Unit line, so no gate ever judges them.
type Direction int

// The directions a metric can improve in.
const (
	Lower Direction = iota
	Higher
	Neutral
)

// Metric is one reported quantity of a result R: its table label, its
// benchfmt unit (units benchstat keeps as they are: '_' rather than '-'
// before "ns"), which way it improves, and how to read it (false: not
// applicable to this result).
type Metric[R any] struct {
	Label, Unit string
	Better      Direction
	Get         func(R) (float64, bool)
}

// WriteUnits writes a benchfmt Unit line per metric that has a direction,
// so benchstat and the results gates know which way is better.
func WriteUnits[R any](w io.Writer, metrics []Metric[R]) error {
	for _, m := range metrics {
		var err error
		switch m.Better {
		case Higher:
			_, err = fmt.Fprintf(w, "Unit %s better=higher\n", m.Unit)
		case Lower:
			_, err = fmt.Fprintf(w, "Unit %s better=lower\n", m.Unit)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteResult writes one benchfmt result line: head (name, iterations and
// anything else fixed) followed by every metric r has, with its unit.
func WriteResult[R any](w io.Writer, head string, r R, metrics []Metric[R]) error {
	var b strings.Builder
	b.WriteString(head)
	for _, m := range metrics {
		if v, ok := m.Get(r); ok {
			fmt.Fprintf(&b, " %s %s", BenchValue(v), m.Unit)
		}
	}
	_, err := fmt.Fprintln(w, b.String())
	return err
}

// BenchValue writes v in plain decimals, as go test does: four
// significant digits, never an exponent.
func BenchValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 || math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', max(0, 3-int(math.Floor(math.Log10(math.Abs(v))))), 64)
}

// Rate is an offered load as a table shows it.
func Rate(rate float64) string {
	if rate == 0 {
		return "open loop"
	}
	return fmt.Sprintf("%.0f events/s", rate)
}

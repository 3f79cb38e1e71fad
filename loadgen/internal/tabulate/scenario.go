package tabulate

import "github.com/queuelab/queuelab/loadgen/gen"

// Scenario is one scenario's results R over one or more implementations,
// with what identifies its stream: the shape both the pipeline report and
// the controller report write as JSON and read back.
type Scenario[R any] struct {
	Name   string    `json:"scenario"`
	Seed   uint64    `json:"seed"`
	Digest string    `json:"digest"`
	Stream gen.Stats `json:"stream"`
	Rate   float64   `json:"offered_rate"`
	// Rounds is how many times every stack ran (queuelab run --count);
	// Results holds every run, rounds interleaved.
	Rounds  int `json:"rounds"`
	Results []R `json:"results"`
}

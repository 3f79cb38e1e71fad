package linearize_test

import (
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/queuelab/queuelab/internal/lab/linearize"
)

func TestWorkQueues(t *testing.T) {
	for _, r := range linearize.CheckWorkQueues(linearize.DefaultConfig()) {
		t.Log(r)
		if r.Verdict != porcupine.Ok {
			t.Errorf("%s", r)
		}
	}
}

func TestPriorityQueues(t *testing.T) {
	for _, r := range linearize.CheckPriorityQueues(linearize.DefaultConfig()) {
		t.Log(r)
		if r.Verdict != porcupine.Ok {
			t.Errorf("%s", r)
		}
	}
}

func TestStores(t *testing.T) {
	for _, r := range linearize.CheckStores(linearize.DefaultConfig()) {
		t.Log(r)
		if r.Verdict != porcupine.Ok {
			t.Errorf("%s", r)
		}
	}
}

package controller_test

import (
	"context"
	"fmt"

	"github.com/queuelab/queuelab/loadgen/controller"
	"github.com/queuelab/queuelab/loadgen/gen"
)

// ExampleRun runs a controller-runtime controller on the drop-in informer
// (lock-free store, mutex DeltaFIFO) with
// controller-runtime's own priority queue over a small seeded stream, and
// checks its books.
func ExampleRun() {
	cfg := gen.Defaults()
	cfg.Objects, cfg.Namespaces, cfg.Events = 300, 3, 600
	cfg.RelistEvery, cfg.Missed = 0, 0
	s, err := gen.Generate(cfg)
	if err != nil {
		panic(err)
	}
	stacks, err := controller.ParseStacks(controller.CtrlRuntime, "lockfree+deltafifo-mutex/priorityqueue")
	if err != nil {
		panic(err)
	}
	res, err := controller.Run(context.Background(), controller.CtrlRuntime, stacks[0], s, gen.NewObjects(s), controller.DefaultOptions())
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Impl, "ledger clean:", res.OK())
	// Output: lockfree+deltafifo-mutex+priorityqueue ledger clean: true
}

// Package controller runs whole controllers — the shape controller authors
// write — over the lab's seeded watch source, with stock client-go and
// controller-runtime parts or the lab's drop-ins, and keeps the same books
// as the pipelines: a run that loses or duplicates work fails.
//
// Two controller styles share one reconcile:
//
//   - client-go: an informer, handlers that enqueue keys, a rate-limited work
//     queue and N workers (client-go's examples/workqueue controller);
//   - controller-runtime: controller.NewTypedUnmanaged with a source.Informer
//     and EnqueueRequestForObject, its queue made by Options.NewQueue.
//
// The reconcile reads through a client-go lister (Get, then a List of its
// namespace by label selector, which is ByIndex on the namespace index, as
// kube-controller-manager's controllers do), burns configurable CPU and
// fails a configurable fraction of the time; it may also wait without CPU,
// as an I/O-bound reconcile waits on an API.
//
// A run may hold several controllers of one style on one shared informer
// (Options.Controllers), as kube-controller-manager runs its controllers
// over one informer factory: each registers its own handler and has its own
// queue, workers and ledger, and the run is correct only if every ledger is.
//
// A stack is one informer kind × one queue kind (Informers, Queues); the
// baselines are client-go's SharedIndexInformer with client-go's queue
// (client-go style) or controller-runtime's priority queue
// (controller-runtime style). Scenarios choose sizes and stacks; Run
// measures reconciles/s, emission-to-reconcile latency, lister staleness,
// peak heap, CPU per reconcile, and verifies the ledger.
package controller

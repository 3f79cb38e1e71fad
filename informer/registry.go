package informer

import (
	"fmt"

	"github.com/queuelab/queuelab/guarantee"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/queuelab/queuelab/queues/deltafifo"
	"github.com/queuelab/queuelab/queues/inorder"
	"github.com/queuelab/queuelab/queues/registry"
	"github.com/queuelab/queuelab/stores"
)

// FIFOConfig is what the informer hands a FIFO constructor when it starts:
// the same inputs client-go's informer gives the RealFIFO or DeltaFIFO it
// builds in Run.
type FIFOConfig struct {
	// Logger is the informer's logger.
	Logger *klog.Logger
	// Name names the queue in logs ("RealFIFO *v1.Pod").
	Name string
	// KnownObjects is the informer's indexer: a DeltaFIFO consults it on
	// Replace and Resync to find deleted and resynced objects.
	KnownObjects cache.KeyListerGetter
	// Transformer is the informer's SetTransform function, applied to every
	// object entering the queue.
	Transformer cache.TransformFunc
	// Identifier and MetricsProvider come from
	// cache.SharedIndexInformerOptions; queues that publish metrics use them.
	Identifier      cache.InformerNameAndResource
	MetricsProvider cache.InformerMetricsProvider
}

// NewFIFO builds the queue between the Reflector and the informer's
// consumer. The consumer pops it from one goroutine, through PopBatch when
// the queue is a cache.QueueWithBatch.
type NewFIFO func(cfg FIFOConfig) cache.Queue

// FIFOGuarantees declares what a FIFO entry promises the informer.
type FIFOGuarantees struct {
	// Order is the order across different keys in which changes reach the
	// store and the handlers. Per-key order is never relaxed.
	Order guarantee.Order
	// Metrics: the queue publishes client-go's informer FIFO metrics through
	// SharedIndexInformerOptions.InformerMetricsProvider.
	Metrics bool
}

// DefaultFIFO is the FIFO an Options with no FIFO gets: the lab's in-order
// FIFO with one mutex (queues/inorder), which keeps client-go's RealFIFO
// contract in atomic mode — every event in arrival order, a relist as one
// event — with a ring buffer that allocates a sixth as often per event
// (BenchmarkInOrderFIFO, results/raw/20261124-c2e9a84-vm-inorder.txt).
const DefaultFIFO = "inorder-mutex"

// ClientGoFIFO names client-go's RealFIFO as v0.37's informer builds it;
// it is the one FIFO that publishes client-go's FIFO metrics.
const ClientGoFIFO = "realfifo"

// FIFOs lists the queues an informer can be built on: client-go's in-order
// RealFIFO (atomic Replace, unlock while processing, bookmarks — what every
// v0.37 informer pops from), the lab's in-order FIFOs as "inorder-<name>"
// (client-go's RealFIFO in its per-object mode among them), and every
// DeltaFIFO of the deltafifo family, client-go's included, as
// "deltafifo-<name>".
var FIFOs = buildFIFOs()

func buildFIFOs() registry.List[NewFIFO, FIFOGuarantees] {
	list := registry.List[NewFIFO, FIFOGuarantees]{{
		Name:       ClientGoFIFO,
		Doc:        "client-go RealFIFO with atomic events, unlock-while-processing and bookmarks, as v0.37's informer builds it",
		New:        newRealFIFO,
		Guarantees: FIFOGuarantees{Order: guarantee.OrderFIFO, Metrics: true},
	}}
	for _, e := range inorder.Impls {
		if e.Name == registry.Baseline {
			continue // ClientGoFIFO is that queue, with its metrics
		}
		list = append(list, registry.Entry[NewFIFO, FIFOGuarantees]{
			Name: "inorder-" + e.Name,
			Doc:  "inorder " + e.Name + " (" + e.Doc + ")",
			New: func(cfg FIFOConfig) cache.Queue {
				opts := inorder.Options{KeyFunction: cache.MetaNamespaceKeyFunc, Transformer: cfg.Transformer}
				if !e.Guarantees.Atomic {
					opts.KnownObjects = cfg.KnownObjects // the per-object mode needs the store's keys
				}
				return registry.Must(e.New(opts))
			},
			Guarantees: FIFOGuarantees{Order: guarantee.OrderFIFO},
		})
	}
	for _, e := range deltafifo.Impls {
		if e.Guarantees.Peer {
			continue
		}
		list = append(list, registry.Entry[NewFIFO, FIFOGuarantees]{
			Name: "deltafifo-" + e.Name,
			Doc:  "deltafifo " + e.Name + " (" + e.Doc + ") with EmitDeltaTypeReplaced, as pre-v0.33 informers built it",
			New: func(cfg FIFOConfig) cache.Queue {
				return e.New(cache.DeltaFIFOOptions{
					Logger:                cfg.Logger,
					Name:                  cfg.Name,
					KnownObjects:          cfg.KnownObjects,
					EmitDeltaTypeReplaced: true,
					Transformer:           cfg.Transformer,
				})
			},
			Guarantees: FIFOGuarantees{Order: e.Guarantees.Order},
		})
	}
	return list
}

func newRealFIFO(cfg FIFOConfig) cache.Queue {
	return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{
		Logger:                cfg.Logger,
		Name:                  cfg.Name,
		KeyFunction:           cache.MetaNamespaceKeyFunc,
		Transformer:           cfg.Transformer,
		AtomicEvents:          true,
		UnlockWhileProcessing: true,
		EmitDeltaTypeBookmark: true,
		Identifier:            cfg.Identifier,
		MetricsProvider:       cfg.MetricsProvider,
	})
}

// New builds an informer, as the registry's entries do; client-go's
// cache.NewSharedIndexInformerWithOptions has this shape.
type New func(lw cache.ListerWatcher, exampleObject runtime.Object, opts cache.SharedIndexInformerOptions) cache.SharedIndexInformer

// Guarantees declares what an informer entry promises beyond the
// cache.SharedIndexInformer contract, which every entry keeps.
type Guarantees struct {
	// FIFO is the queue entry's declaration (zero for client-go's informer,
	// whose RealFIFO keeps global order).
	FIFO FIFOGuarantees
	// Store is the store entry's declaration: what GetIndexer's readers may
	// see while the informer writes.
	Store stores.Guarantees
}

// Impls lists client-go's cache.NewSharedIndexInformerWithOptions first
// ("clientgo"), then this package's informer over every store × FIFO
// combination, named "<store>+<fifo>" ("lockfree+realfifo").
func Impls() registry.List[New, Guarantees] {
	clientgoStore, _ := stores.Impls.Lookup(registry.Baseline)
	list := registry.List[New, Guarantees]{{
		Name: registry.Baseline,
		Doc:  "client-go cache.NewSharedIndexInformerWithOptions: RealFIFO (atomic, unlock-while-processing, batches), threadSafeMap, a processorListener per handler",
		New: func(lw cache.ListerWatcher, obj runtime.Object, opts cache.SharedIndexInformerOptions) cache.SharedIndexInformer {
			return cache.NewSharedIndexInformerWithOptions(lw, obj, opts)
		},
		Guarantees: Guarantees{FIFO: FIFOGuarantees{Order: guarantee.OrderFIFO, Metrics: true}, Store: clientgoStore.Guarantees},
	}}
	for _, s := range stores.Impls {
		for _, q := range FIFOs {
			list = append(list, registry.Entry[New, Guarantees]{
				Name: s.Name + "+" + q.Name,
				Doc:  fmt.Sprintf("queuelab informer: store %s, FIFO %s, batched fan-out", s.Name, q.Name),
				New: func(lw cache.ListerWatcher, obj runtime.Object, opts cache.SharedIndexInformerOptions) cache.SharedIndexInformer {
					return MustNewSharedIndexInformer(lw, obj, Options{SharedIndexInformerOptions: opts, FIFO: q.Name, Store: s.Name})
				},
				Guarantees: Guarantees{FIFO: q.Guarantees, Store: s.Guarantees},
			})
		}
	}
	return list
}

package informer

import (
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// Func has the signature of controller-runtime's cache.Options.NewInformer
// and of client-go's cache.NewSharedIndexInformer, so an informer factory's
// NewInformerFunc can call it too.
type Func func(lw cache.ListerWatcher, exampleObject runtime.Object, resyncPeriod time.Duration, indexers cache.Indexers) cache.SharedIndexInformer

// NewInformerFunc checks opts once, by building an informer with them
// (never run: it starts nothing, and its metrics Identifier is left out so
// no series is made twice), and returns a Func building informers with
// them, where the caller's resync period and indexers replace
// opts.ResyncPeriod and join opts.Indexers (the caller's win a name
// clash). The check is what lets the Func, whose callers cannot take an
// error, never fail.
func NewInformerFunc(opts Options) (Func, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	probe := opts
	probe.Identifier, probe.InformerMetricsProvider = cache.InformerNameAndResource{}, nil
	probe.FIFO.PublishesMetrics = false
	if _, err := NewSharedIndexInformer(&cache.ListWatch{}, nil, probe); err != nil {
		return nil, err
	}
	return func(lw cache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers cache.Indexers) cache.SharedIndexInformer {
		o := opts
		o.ResyncPeriod = resync
		o.Indexers = maps.Clone(opts.Indexers)
		if o.Indexers == nil {
			o.Indexers = cache.Indexers{}
		}
		maps.Copy(o.Indexers, indexers)
		return MustNewSharedIndexInformer(lw, obj, o)
	}, nil
}

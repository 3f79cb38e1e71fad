// Package informer is a drop-in cache.SharedIndexInformer assembled from the
// lab's parts, for controllers that get their informers from client-go's
// informers.SharedInformerFactory (InformerFor) or controller-runtime's
// cache (cache.Options.NewInformer) rather than building one by hand.
//
// The data path is client-go's: the Reflector (run by cache.New) lists and
// watches into a FIFO, one consumer pops it and applies each pop to the
// store, then hands the resulting notifications to every handler
// registration. What the lab changes is chosen per informer: the FIFO
// (FIFOs: the lab's in-order FIFO "inorder-mutex" by default, which keeps
// client-go's RealFIFO contract; client-go's RealFIFO as "realfifo"; or any
// DeltaFIFO of queues/deltafifo), the store (any entry of stores.Impls),
// and the handler fan-out, which hands notifications over in batches
// without allocating and runs each handler on one goroutine instead of
// client-go v0.37's three. Everything else is client-go's unless an Options
// field says otherwise: handler panics crash as utilruntime.HandleCrash
// makes them (RecoverHandlerPanics opts out), errors carry client-go's
// messages, and a setting the informer cannot honour is an error.
//
// Impls lists client-go's own informer ("clientgo") and every store × FIFO
// combination; informer/informertest holds the conformance suite all
// of them pass.
package informer

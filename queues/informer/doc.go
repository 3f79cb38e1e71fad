// Package informer is a drop-in cache.SharedIndexInformer assembled from the
// lab's parts, for controllers that get their informers from client-go's
// informers.SharedInformerFactory (InformerFor) or controller-runtime's
// cache (cache.Options.NewInformer) rather than building one by hand.
//
// The data path is client-go's: the Reflector (run by cache.New) lists and
// watches into a FIFO, one consumer pops it and applies each pop to the
// store, then hands the resulting notifications to every handler
// registration. What the lab changes is chosen per informer: the FIFO
// (FIFOs: client-go's in-order RealFIFO by default, or any DeltaFIFO of
// queues/deltafifo), the store (any entry of stores.Impls), and the handler
// fan-out, which hands notifications over in batches without allocating
// and runs each handler on one goroutine instead of client-go's two.
//
// Impls lists client-go's own informer ("clientgo") and every store × FIFO
// combination; queues/informer/informertest holds the conformance suite all
// of them pass.
package informer
